package redistest

import (
	"os"
	"testing"
)

// A server starts, answers PING, and leaves nothing behind once stopped.
func TestStartPingStop(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	if err := Ping(s.Addr()); err != nil {
		t.Fatalf("PING: %v", err)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Dir()); !os.IsNotExist(err) {
		t.Errorf("directory %s left behind (%v)", s.Dir(), err)
	}
	if Ping(s.Addr()) == nil {
		t.Error("the server still answers after Stop")
	}
}

func TestNetwork(t *testing.T) {
	for addr, want := range map[string]string{"/tmp/x/redis.sock": "unix", "127.0.0.1:6379": "tcp", "localhost:1": "tcp"} {
		if got := Network(addr); got != want {
			t.Errorf("Network(%q) = %q, want %q", addr, got, want)
		}
	}
}

// Addr gives a test a server of its own (or $DURASIM_REDIS_ADDR's).
func TestAddr(t *testing.T) {
	if err := Ping(Addr(t)); err != nil {
		t.Fatal(err)
	}
}
