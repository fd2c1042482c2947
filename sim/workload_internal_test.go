package sim

import (
	"bytes"
	"fmt"
	"strconv"
	"testing"
)

// docSecrets.MinLen is a true lower bound: no secret of a workload is
// shorter, whatever its tenants and size.
func TestSecretsMinLenIsALowerBound(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Docs, cfg.Tenants = 300, 8
	for seed := uint64(1); seed <= 20; seed++ {
		src := docSecrets{docs: Workload(cfg, seed)}
		floor := src.MinLen()
		for i := range src.Len() {
			if n := len(src.AppendSecret(nil, i)); n < floor {
				t.Fatalf("seed %d: secret %d has %d bytes, MinLen says %d", seed, i, n, floor)
			}
		}
	}
	if got := (docSecrets{}).MinLen(); got < 40 {
		t.Fatalf("MinLen = %d: too small to skip anything", got)
	}
}

// The texts a small workload keeps are the secrets built on demand, byte
// for byte, with and without -only.
func TestKeptTextsAreTheSecrets(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Docs, cfg.Tenants = 40, 3
	for _, only := range [][]int32{nil, {3, 17, 40}} {
		cfg.Only = only
		for seed := uint64(1); seed <= 10; seed++ {
			var texts textArena
			kept := docSecrets{docs: workloadInto(nil, cfg, seed, &texts), texts: &texts}
			built := docSecrets{docs: Workload(cfg, seed)}
			if kept.Len() != built.Len() || !texts.on {
				t.Fatalf("seed %d: %d kept secrets (arena on %v), %d built", seed, kept.Len(), texts.on, built.Len())
			}
			for i := range built.Len() {
				if a, b := kept.AppendSecret(nil, i), built.AppendSecret(nil, i); !bytes.Equal(a, b) {
					t.Fatalf("seed %d only %v: secret %d kept as %q, built as %q", seed, only, i, a, b)
				}
			}
		}
	}
}

// TestAppendCPFSpelling checks the digit-by-digit CPF against its
// definition: n's nine digits (zero-padded) as ddd.ddd.ddd, a dash, the
// first digit of n%97 and a zero.
func TestAppendCPFSpelling(t *testing.T) {
	for _, n := range []int64{0, 7, 96, 97, 9_999, 123_456_789, 500_000_096, 999_999_999} {
		s := fmt.Sprintf("%09d", n)
		want := s[0:3] + "." + s[3:6] + "." + s[6:9] + "-" + strconv.FormatInt(n%97, 10)[:1] + "0"
		if got := string(appendCPF([]byte("x"), n)); got != "x"+want {
			t.Errorf("appendCPF(%d) = %q, want %q", n, got, "x"+want)
		}
	}
	for _, n := range []int{1, 9, 10, 64, 65, 1000} {
		if got := docID(n); got != "d"+strconv.Itoa(n) {
			t.Errorf("docID(%d) = %q", n, got)
		}
	}
}

// TestTextSpelling checks a document's text, built in place from its
// template, against its definition word by word, and its hashes against
// FNV-1a byte by byte.
func TestTextSpelling(t *testing.T) {
	for _, d := range []Doc{
		{Index: 1, invoice: 10000, cpf: 0},
		{Index: 24, invoice: 99999, cpf: 999_999_999},
		{Index: 1234, invoice: 54321, cpf: 123_456_789},
		{Index: 3, invoice: 7, cpf: 42}, // outside the drawn ranges: spelled word by word
	} {
		want := "Fatura " + strconv.Itoa(int(d.invoice)) + ", CPF " + string(appendCPF(nil, d.cpf)) + ", contato cliente" +
			strconv.Itoa(int(d.Index)) + "@example.com, ref " + string(appendCanary(nil, &d))
		if got := d.Text(); got != want {
			t.Errorf("text of %+v = %q, want %q", d, got, want)
		}
		fnv := func(h uint64, s string) uint64 {
			for i := 0; i < len(s); i++ {
				h = (h ^ uint64(s[i])) * fnvPrime
			}
			return h
		}
		for _, n := range []int{0, 1, 3, 4, 5, len(want)} {
			text := want[:n]
			p, th := payloadHashes("acme", "d1", []byte(text))
			if wp, wt := fnv(fnvOffset, "acme\x00d1\x00"+text), fnv(fnvOffset, text); p != wp || th != wt {
				t.Errorf("payloadHashes of %q = %x, %x; want %x, %x", text, p, th, wp, wt)
			}
		}
	}
}
