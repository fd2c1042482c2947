package goqitetarget

import (
	"os"
	"testing"

	"github.com/durasim/durasim/internal/pgtest"
)

// The PostgreSQL tests share one throwaway server (or $DURASIM_PG_URL's),
// stopped after the package's tests.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
