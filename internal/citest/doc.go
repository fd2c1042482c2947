// Package citest holds the tests of the scripts in .ci/: the preflight
// of make test (`bash .ci/install-deps --check`) names every tool the
// machine lacks and the one command that installs them, in its first
// seconds, before any test runs.
package citest
