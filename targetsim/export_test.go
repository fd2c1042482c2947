package targetsim

// RunLimit is when a run stops however far it got: the end of the drain
// window after quiescence.
const RunLimit = quiesceAt + drainWindow
