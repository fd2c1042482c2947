package redistest

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// EnvAddr names the variable that points tests and commands at an
// existing server: a Unix socket's path, or host:port.
const EnvAddr = "DURASIM_REDIS_ADDR"

const (
	startTimeout = 20 * time.Second
	stopTimeout  = 10 * time.Second
)

// Server is a redis-server whose socket and log live in one directory.
type Server struct {
	dir    string
	cmd    *exec.Cmd
	exited chan struct{}
}

// Network is the address's network for a client: "unix" for a socket's
// path, "tcp" for host:port.
func Network(addr string) string {
	if strings.HasPrefix(addr, "/") || strings.HasPrefix(addr, ".") {
		return "unix"
	}
	return "tcp"
}

// Addr is the server's Unix socket.
func (s *Server) Addr() string { return filepath.Join(s.dir, "redis.sock") }

// Dir is the server's directory.
func (s *Server) Dir() string { return s.dir }

// Binary finds redis-server.
func Binary() (string, error) {
	if p, err := exec.LookPath("redis-server"); err == nil {
		return p, nil
	}
	for _, p := range []string{"/usr/bin/redis-server", "/usr/sbin/redis-server"} {
		if st, err := os.Stat(p); err == nil && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", errors.New("redis-server not found (install it: bash .ci/install-deps)")
}

// Start starts a throwaway redis-server in a new temporary directory and
// waits until it answers PING.
func Start() (*Server, error) {
	bin, err := Binary()
	if err != nil {
		return nil, err
	}
	// A short root: a Unix socket's path has at most 107 bytes.
	dir, err := os.MkdirTemp("", "durasim-redis-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, exited: make(chan struct{})}
	log, err := os.Create(filepath.Join(dir, "redis.log"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	defer log.Close()
	s.cmd = exec.Command(bin, "--port", "0", "--unixsocket", s.Addr(), "--unixsocketperm", "700", "--dir", dir,
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--logfile", "")
	s.cmd.Stdout, s.cmd.Stderr = log, log
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // it dies with us
	if err := s.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	go func() { _ = s.cmd.Wait(); close(s.exited) }()
	if err := s.waitReady(); err != nil {
		_ = s.Stop()
		return nil, err
	}
	return s, nil
}

// waitReady polls the socket with PING until PONG, the process's exit or
// the timeout.
func (s *Server) waitReady() error {
	deadline := time.Now().Add(startTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			b, _ := os.ReadFile(filepath.Join(s.dir, "redis.log"))
			return fmt.Errorf("redis-server exited at start: %s", lastLine(string(b)))
		default:
		}
		if Ping(s.Addr()) == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("redis-server did not answer within %v", startTimeout)
}

// Ping sends PING to the server at addr and wants PONG.
func Ping(addr string) error {
	c, err := net.DialTimeout(Network(addr), addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if strings.TrimSpace(line) != "+PONG" {
		return fmt.Errorf("redis at %s answered PING with %q", addr, strings.TrimSpace(line))
	}
	return nil
}

// Stop ends the server (SIGTERM, SIGKILL after a while) and removes its
// directory.
func (s *Server) Stop() error {
	if s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(stopTimeout):
			_ = s.cmd.Process.Kill()
			<-s.exited
		}
	}
	return os.RemoveAll(s.dir)
}

// Addr returns $DURASIM_REDIS_ADDR if set, else the socket of a server of
// t's own, stopped at t's cleanup. It fails t if none can be started.
func Addr(t testing.TB) string {
	t.Helper()
	if a := os.Getenv(EnvAddr); a != "" {
		return a
	}
	s, err := Start()
	if err != nil {
		t.Fatalf("redistest: cannot start a throwaway redis-server (or set %s): %v", EnvAddr, err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("redistest: %v", err)
		}
	})
	return s.Addr()
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
