package sim

import (
	"strconv"
	"testing"
)

// TestHexValueIsParseUint checks hexValue against strconv.ParseUint(s, 16,
// 64) (its error dropped) on what activities return and on what they never
// do.
func TestHexValueIsParseUint(t *testing.T) {
	for _, s := range []string{"0", "acf652a416bf4753", "ffffffffffffffff", "1", "00000000000000000", "10000000000000000",
		"", "ABC", "12g", "-1", "+1", "0x10", "1_0", "fffffffffffffffff", "a/b"} {
		want, _ := strconv.ParseUint(s, 16, 64)
		if got := hexValue(s); got != want {
			t.Errorf("hexValue(%q) = %d, ParseUint says %d", s, got, want)
		}
	}
}
