package invariants

import (
	"regexp"
	"testing"

	"pgregory.net/rapid"
)

// The hand-rolled matchers must match exactly what the regular expressions
// they replace match.
var (
	cpfRE   = regexp.MustCompile(`\d{3}\.\d{3}\.\d{3}-\d{2}`)
	emailRE = regexp.MustCompile(`[A-Za-z0-9._%+-]@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2}`)
)

func TestPIIMatchers(t *testing.T) {
	for _, c := range []struct {
		s          string
		cpf, email bool
	}{
		{"", false, false},
		{"123.456.789-00", true, false},
		{"CPF 123.456.789-001 e", true, false},
		{"123.456.789-0", false, false},
		{"123.456.78-900", false, false},
		{"1-2.123.456.789-00", true, false},
		{"ana@example.com", false, true},
		{"x a.b@c.d.io", false, true},
		{"@example.com", false, false},
		{"ana@localhost", false, false},
		{"ana@example.c", false, false},
		{"ana@.example.com", false, false},
		{"ana@ex..com", false, false},
		{"ana@ex-1.c0m @b.cd", false, false},
		{"ana@ex-1.c0m b@b.cd", false, true},
		{"op-ana", false, false},
	} {
		if got := hasCPF(c.s); got != c.cpf {
			t.Errorf("hasCPF(%q) = %v, want %v", c.s, got, c.cpf)
		}
		if got := hasEmail(c.s); got != c.email {
			t.Errorf("hasEmail(%q) = %v, want %v", c.s, got, c.email)
		}
	}
}

func TestPIIMatchersAgreeWithRegexp(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringOfN(rapid.SampledFrom([]rune("0123456789.-@aZx_+% ")), 0, 40, -1).Draw(t, "s")
		if got, want := hasCPF(s), cpfRE.MatchString(s); got != want {
			t.Fatalf("hasCPF(%q) = %v, regexp says %v", s, got, want)
		}
		if got, want := hasEmail(s), emailRE.MatchString(s); got != want {
			t.Fatalf("hasEmail(%q) = %v, regexp says %v", s, got, want)
		}
	})
}
