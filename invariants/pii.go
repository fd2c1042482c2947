package invariants

import "strings"

// Hand-rolled matchers for personal data, cheap enough to run on every
// event text. They match exactly what these expressions match anywhere in
// a string (a test holds them to it):
//
//	CPF     \d{3}\.\d{3}\.\d{3}-\d{2}
//	e-mail  [A-Za-z0-9._%+-]@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2}

// hasCPF reports whether s contains a Brazilian CPF number (ddd.ddd.ddd-dd).
func hasCPF(s string) bool {
	for i := 11; i+3 <= len(s); i++ {
		k := strings.IndexByte(s[i:], '-')
		if k < 0 || i+k+3 > len(s) {
			return false
		}
		i += k
		if isCPF(s[i-11 : i+3]) {
			return true
		}
	}
	return false
}

// isCPF reports whether s (14 bytes) is ddd.ddd.ddd-dd.
func isCPF(s string) bool {
	const shape = "ddd.ddd.ddd-dd"
	for i := range len(shape) {
		if shape[i] == 'd' && !isDigit(s[i]) || shape[i] != 'd' && s[i] != shape[i] {
			return false
		}
	}
	return true
}

// hasEmail reports whether s contains an e-mail address.
func hasEmail(s string) bool {
	for i := 1; i < len(s); i++ {
		k := strings.IndexByte(s[i:], '@')
		if k < 0 {
			return false
		}
		i += k
		if isLocal(s[i-1]) && isDomain(s[i+1:]) {
			return true
		}
	}
	return false
}

// isDomain reports whether s starts with a domain: labels of letters,
// digits and hyphens joined by single dots, the last one starting with
// two letters.
func isDomain(s string) bool {
	for p := 0; p < len(s); p++ {
		switch c := s[p]; {
		case c == '.':
			if p == 0 || s[p-1] == '.' {
				return false
			}
			if p+2 < len(s) && isLetter(s[p+1]) && isLetter(s[p+2]) {
				return true
			}
		case !isLabel(c):
			return false
		}
	}
	return false
}

func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isLabel(c byte) bool  { return isLetter(c) || isDigit(c) || c == '-' }
func isLocal(c byte) bool  { return isLabel(c) || strings.IndexByte("._%+", c) >= 0 }
