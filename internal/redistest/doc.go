// Package redistest gives tests, and the commands that need one, a
// throwaway redis-server without asking the machine for one.
//
// [Start] runs Debian's redis-server (looked up on PATH, then
// /usr/bin, /usr/sbin) in a new temporary directory: no TCP listener
// (port 0), a Unix socket in the directory, no persistence (no RDB
// snapshot, no AOF: the data is thrown away), its log in the directory.
// [Server.Stop] ends it and removes the directory; the server dies with
// the process that started it (Pdeathsig), so a killed test leaves no
// server behind. [Addr] is the test form: $DURASIM_REDIS_ADDR when set,
// else a server of the test's own, stopped at its cleanup.
//
// A test that cannot get a server fails; it never skips, so a missing
// redis-server cannot turn a suite silently green (.ci/install-deps
// installs it).
package redistest
