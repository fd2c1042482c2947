package skips

import (
	"testing"
	"time"
)

func TestTimed(t *testing.T) { time.Sleep(time.Millisecond) }
