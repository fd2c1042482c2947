package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

const (
	// Port only names the socket file (.s.PGSQL.<port>): there is no TCP
	// listener, and each server has its own socket directory.
	Port = 5432
	// User is the superuser initdb creates; trust auth, so no password.
	User = "durasim"
	// Database is created on start so URLs need no admin step.
	Database = "durasim"

	// marker holds the pid of the test process that owns the directory
	// (empty for a server started by cmd/pgserver). Its presence is what
	// lets Stop and the stale sweep remove a directory: they never delete
	// one they did not create.
	marker = ".durasim-pgtest"

	startTimeout = 60 * time.Second
	stopTimeout  = 30 * time.Second
)

// Server is a PostgreSQL server whose data, socket and log live in one
// directory.
type Server struct {
	dir    string
	cmd    *exec.Cmd     // nil when attached to a server started elsewhere
	exited chan struct{} // closed once cmd has been waited for
}

// Start creates dir (which must be absent or empty), initialises a cluster
// in dir/data and starts postgres on a Unix socket in dir, logging to
// dir/postgres.log. The server outlives the calling process; stop it with
// [Server.Stop] or [StopDir].
func Start(dir string) (*Server, error) {
	return start(dir, "", false)
}

// Attach returns the server that [Start] left running in dir, so that a
// different process can stop it.
func Attach(dir string) (*Server, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(abs, marker)); err != nil {
		return nil, fmt.Errorf("%s was not made by pgtest (no %s file)", abs, marker)
	}
	return &Server{dir: abs}, nil
}

// StopDir stops the server in dir, if any, and removes dir. A missing dir
// is not an error.
func StopDir(dir string) error {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	s, err := Attach(dir)
	if err != nil {
		return err
	}
	return s.Stop()
}

// Dir is the server's directory (absolute); the socket is in it.
func (s *Server) Dir() string { return s.dir }

// URL is a pgx/libpq URL for database [Database] as [User] over the socket.
func (s *Server) URL() string { return socketURL(s.dir, Database) }

func socketURL(dir, db string) string {
	// Keep '/' readable in host=; pgx unescapes the query either way.
	host := strings.ReplaceAll(url.QueryEscape(dir), "%2F", "/")
	return fmt.Sprintf("postgres://%s@/%s?host=%s&port=%d&sslmode=disable", User, db, host, Port)
}

// Stop shuts the server down the way `pg_ctl stop -m immediate` does
// (SIGQUIT to the postmaster, which takes its backends down with it; the
// data is thrown away, so there is nothing to flush) and removes the
// directory.
func (s *Server) Stop() error {
	if err := s.kill(); err != nil {
		return err
	}
	if err := os.RemoveAll(s.dir); err != nil {
		return fmt.Errorf("remove %s: %v", s.dir, err)
	}
	return nil
}

func (s *Server) kill() error {
	if s.cmd != nil {
		pid := s.cmd.Process.Pid
		_ = syscall.Kill(pid, syscall.SIGQUIT)
		select {
		case <-s.exited:
			return nil
		case <-time.After(stopTimeout):
		}
		// Not reaped yet, so the process group cannot have been reused.
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		<-s.exited
		return nil
	}
	pid, ok := postmasterPID(s.dir)
	if !ok {
		return nil // never started, or already shut down
	}
	_ = syscall.Kill(pid, syscall.SIGQUIT)
	for deadline := time.Now().Add(stopTimeout); processAlive(pid); {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			return fmt.Errorf("postmaster %d did not stop within %v; sent SIGKILL", pid, stopTimeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return nil
}

// postmasterPID reads the live postmaster's pid from data/postmaster.pid,
// checking that the pid still names a postgres process (it may have been
// reused since).
func postmasterPID(dir string) (int, bool) {
	b, err := os.ReadFile(filepath.Join(dir, "data", "postmaster.pid"))
	if err != nil {
		return 0, false
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || pid <= 0 || !processAlive(pid) {
		return 0, false
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err == nil && !bytes.Contains(cmdline, []byte("postgres")) {
		return 0, false
	}
	return pid, true
}

// processAlive reports whether pid exists and is not a zombie (a postmaster
// reparented to a PID 1 that does not reap would otherwise look alive).
func processAlive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !errors.Is(err, os.ErrNotExist)
	}
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}

// start is Start with an owner pid for the marker and, when tied, a
// parent-death signal so a SIGKILLed test binary does not leave a server.
func start(dir, owner string, tied bool) (s *Server, err error) {
	dir, err = filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	// The socket path must fit in sun_path (108 bytes with the NUL).
	if sock := filepath.Join(dir, fmt.Sprintf(".s.PGSQL.%d", Port)); len(sock) > 107 {
		return nil, fmt.Errorf("socket path %s is longer than 107 bytes; use a shorter directory", sock)
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%s is not empty (a server left running? stop it first)", dir)
	}
	bin, err := findBinDir()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, marker), []byte(owner), 0o644); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(dir)
		}
	}()
	cred, err := runAs(dir)
	if err != nil {
		return nil, err
	}
	// LC_ALL=C: minimal containers often have no locales, and initdb
	// aborts on a locale it cannot load.
	env := append(os.Environ(), "LC_ALL=C", "LANG=C")

	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", filepath.Join(dir, "data"),
		"-A", "trust", "-U", User, "--no-sync", "-E", "UTF8", "--locale=C")
	initdb.Dir, initdb.Env = dir, env
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %v: %s", err, lastLine(out))
	}

	logPath := filepath.Join(dir, "postgres.log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logf.Close() // the child has its own copy
	cmd := exec.Command(filepath.Join(bin, "postgres"), "-D", filepath.Join(dir, "data"),
		"-k", dir, "-p", strconv.Itoa(Port),
		"-c", "listen_addresses=",
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdout, cmd.Stderr = logf, logf
	// Own session: ^C at a terminal or a signal to the test's process
	// group does not reach it; Stop decides when it ends.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setsid: true}
	if tied {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGQUIT
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start postgres: %v", err)
	}
	srv := &Server{dir: dir, cmd: cmd, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(srv.exited) }()
	if err := srv.waitReady(logPath); err != nil {
		// srv, not the named result: "return nil, err" has set s to nil
		// by the time a deferred cleanup would run.
		_ = srv.kill()
		return nil, err
	}
	return srv, nil
}

// waitReady polls until the server accepts connections, then creates the
// durasim database.
func (s *Server) waitReady(logPath string) error {
	deadline := time.Now().Add(startTimeout)
	admin := socketURL(s.dir, "postgres")
	for {
		select {
		case <-s.exited:
			out, _ := os.ReadFile(logPath)
			return fmt.Errorf("postgres exited during start-up: %s", lastLine(out))
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		conn, err := pgx.Connect(ctx, admin)
		cancel()
		if err == nil {
			// Copying the template database is disk work: on a loaded
			// machine it outlasts a connection attempt's 2 s by far (a CI
			// run beside other tests timed out here), so it gets the
			// start-up budget.
			ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
			_, err = conn.Exec(ctx, "CREATE DATABASE "+Database)
			_ = conn.Close(ctx)
			cancel()
			if err != nil {
				return fmt.Errorf("create database %s: %v", Database, err)
			}
			return nil
		}
		if time.Now().After(deadline) {
			out, _ := os.ReadFile(logPath)
			return fmt.Errorf("postgres not accepting connections after %v: %v (log: %s)", startTimeout, err, lastLine(out))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// runAs returns the credential to run initdb and postgres with: nil unless
// we are root, which both refuse. Then it is the "postgres" user (present
// wherever the Debian package is installed) or "nobody", dir is chown'ed to
// it and every parent of dir must let it through.
func runAs(dir string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	var u *user.User
	var err error
	for _, name := range []string{"postgres", "nobody"} {
		if u, err = user.Lookup(name); err == nil {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("running as root and neither user postgres nor nobody exists to run the server as")
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		return nil, err
	}
	if err := os.Chown(filepath.Join(dir, marker), uid, gid); err != nil {
		return nil, err
	}
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		if !traversable(p, uid, gid) {
			return nil, fmt.Errorf("the server runs as user %s, who cannot enter %s; use a directory it can reach (e.g. under /tmp)", u.Username, p)
		}
		if p == filepath.Dir(p) {
			break
		}
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func traversable(path string, uid, gid int) bool {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return false
	}
	switch {
	case int(st.Uid) == uid:
		return st.Mode&0o100 != 0
	case int(st.Gid) == gid:
		return st.Mode&0o010 != 0
	default:
		return st.Mode&0o001 != 0
	}
}

// findBinDir returns the directory holding initdb and postgres: the one on
// PATH, else the newest /usr/lib/postgresql/<version>/bin (Debian keeps
// them off PATH). .ci/run searches the same places.
func findBinDir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		dir := filepath.Dir(p)
		if isExec(filepath.Join(dir, "postgres")) {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		return versionLess(filepath.Base(filepath.Dir(dirs[j])), filepath.Base(filepath.Dir(dirs[i])))
	})
	for _, dir := range dirs {
		if isExec(filepath.Join(dir, "initdb")) && isExec(filepath.Join(dir, "postgres")) {
			return dir, nil
		}
	}
	return "", errors.New("no PostgreSQL server binaries (initdb, postgres) on PATH or in /usr/lib/postgresql/*/bin: install the postgresql package or set DURASIM_PG_URL")
}

func isExec(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// versionLess compares dotted versions numerically ("9.6" < "15").
func versionLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, _ := strconv.Atoi(as[i])
		y, _ := strconv.Atoi(bs[i])
		if x != y {
			return x < y
		}
	}
	return len(as) < len(bs)
}

// lastLine keeps error messages to one line: the tool's last words are
// usually the reason.
func lastLine(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
