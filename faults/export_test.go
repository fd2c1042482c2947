package faults

// Canonical is the pipeline's canonical plan text, for the external tests.
const Canonical = canonical
