package chaos

import (
	"os"
	"testing"

	"github.com/durasim/durasim/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
