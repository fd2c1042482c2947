// Package pgtest gives tests a PostgreSQL server without asking the machine
// for one.
//
// [URL] returns $DURASIM_PG_URL when it is set. Otherwise it starts one
// throwaway server per test binary (shared by every test of the process):
// initdb into a fresh temporary directory, postgres listening only on a Unix
// socket in that directory (an empty listen_addresses, so parallel test binaries
// never clash on a TCP port), with fsync, synchronous_commit and
// full_page_writes off because the data is thrown away. The URL has the form
//
//	postgres://durasim@/durasim?host=<dir>&port=5432&sslmode=disable
//
// A test that cannot get a server fails (t.Fatalf); it never skips, so a
// missing server cannot turn the PostgreSQL suite silently green.
//
// # Server binaries and root
//
// initdb and postgres are looked up on PATH, then in
// /usr/lib/postgresql/<version>/bin (Debian's layout, newest version first).
// Both refuse to run as root, so when the test runs as root they run as the
// "postgres" user if it exists, else "nobody", with the directory chown'ed
// to that user. Root can still connect to the socket.
//
// # Teardown
//
// Cleanup functions of testing.TB are per test, so the shared server is
// stopped by [Main], which a package calling [URL] must use:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
//
// [URL] fails the test if the package has no such TestMain. If the test
// binary is killed instead, the postmaster gets SIGQUIT from the kernel
// (parent-death signal) and shuts down, and the next [URL] removes
// durasim-pg-* directories whose owning test process is gone.
//
// [Fresh] gives a test its own database on a server, dropped at the end of
// the test.
//
// [Start] and [Server.Stop] are the same machinery for a server that outlives
// its starter; cmd/pgserver uses them for `make pg-up` / `make pg-down`.
package pgtest
