package sim

import (
	"bytes"
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
