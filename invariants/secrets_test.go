package invariants

import (
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// The index finds exactly what a linear scan with strings.Contains finds.
func TestSecretIndexMatchesLinearScan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		alphabet := rapid.SampledFrom([]string{"a", "b", "c", "unexpected ", "token ", "'"})
		word := rapid.Custom(func(t *rapid.T) string {
			return strings.Join(rapid.SliceOfN(alphabet, 1, 12).Draw(t, "parts"), "")
		})
		secrets := rapid.SliceOfN(word, 0, 20).Draw(t, "secrets")
		text := word.Draw(t, "text") + rapid.SampledFrom(append([]string{""}, secrets...)).Draw(t, "embedded") + word.Draw(t, "tail")
		x := newSecretIndex(secretList(secrets))
		got := x.find(text)
		want := -1
		for i, s := range secrets {
			if s != "" && strings.Contains(text, s) {
				want = i
				break
			}
		}
		if (got < 0) != (want < 0) {
			t.Fatalf("find(%q) = %d, linear scan %d", text, got, want)
		}
		if got >= 0 && !strings.Contains(text, secrets[got]) {
			t.Fatalf("find(%q) = %d, which does not occur", text, got)
		}
	})
}

// Secrets sharing a long prefix still spread over many buckets.
func TestSecretIndexSpreadsSharedPrefixes(t *testing.T) {
	var secrets []string
	for i := range 10_000 {
		secrets = append(secrets, fmt.Sprintf("unexpected token near 'Fatura %05d de acme, CPF'", i))
	}
	x := newSecretIndex(secretList(secrets))
	worst := 0
	for _, b := range x.buckets {
		worst = max(worst, int(b.n))
	}
	if worst > 50 {
		t.Fatalf("a bucket holds %d secrets", worst)
	}
	if x.find("log: unexpected token near 'Fatura 04242 de acme, CPF' at 3") != 4242 {
		t.Fatal("embedded secret not found")
	}
	if x.find("unexpected token near 'Fatura") >= 0 {
		t.Fatal("a prefix is not the secret")
	}
}

// The index answers exactly as the map of windows it replaced: the same
// secret, not only some secret, since a violation names it by number.
func TestSecretIndexMatchesMapIndex(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		alphabet := rapid.SampledFrom([]string{"a", "b", "c", "unexpected ", "token ", "'", "near 'Fatura 0"})
		word := rapid.Custom(func(t *rapid.T) string {
			return strings.Join(rapid.SliceOfN(alphabet, 1, 12).Draw(t, "parts"), "")
		})
		secrets := rapid.SliceOfN(word, 0, 40).Draw(t, "secrets")
		text := word.Draw(t, "text") + strings.Join(rapid.SliceOfN(rapid.SampledFrom(append([]string{""}, secrets...)), 0, 4).Draw(t, "embedded"), "") + word.Draw(t, "tail")
		x := newSecretIndex(secretList(secrets))
		if got, want := x.find(text), mapIndexFind(secrets, text); got != want {
			t.Fatalf("find(%q) = %d, the map index says %d", text, got, want)
		}
	})
}

// mapIndexFind is the earlier index: windows in a Go map of slices.
func mapIndexFind(secrets []string, text string) int {
	buckets := map[string][]placed{}
	var short []int
	for i, sec := range secrets {
		if sec == "" {
			continue
		}
		if len(sec) < secretWindow {
			short = append(short, i)
			continue
		}
		last := len(sec) - secretWindow
		best, bestLen := 0, -1
		for _, off := range [...]int{0, last / 4, last / 2, 3 * last / 4, last} {
			if n := len(buckets[sec[off:off+secretWindow]]); bestLen < 0 || n < bestLen {
				best, bestLen = off, n
			}
		}
		w := sec[best : best+secretWindow]
		buckets[w] = append(buckets[w], placed{secret: int32(i), off: int32(best)})
	}
	for _, i := range short {
		if strings.Contains(text, secrets[i]) {
			return i
		}
	}
	for i := 0; i+secretWindow <= len(text); i++ {
		for _, p := range buckets[text[i:i+secretWindow]] {
			if start := i - int(p.off); start >= 0 && strings.HasPrefix(text[start:], secrets[p.secret]) {
				return int(p.secret)
			}
		}
	}
	return -1
}
