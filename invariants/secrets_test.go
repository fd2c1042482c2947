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
		x := newSecretIndex(secrets)
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
	x := newSecretIndex(secrets)
	worst := 0
	//det:sorted
	for _, b := range x.buckets {
		worst = max(worst, len(b))
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
