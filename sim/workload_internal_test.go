package sim

import "testing"

// docSecrets.MinLen is a true lower bound: no secret of a workload is
// shorter, whatever its tenants and size.
func TestSecretsMinLenIsALowerBound(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Docs, cfg.Tenants = 300, 8
	for seed := uint64(1); seed <= 20; seed++ {
		src := docSecrets(Workload(cfg, seed))
		floor := src.MinLen()
		for i := range src.Len() {
			if n := len(src.AppendSecret(nil, i)); n < floor {
				t.Fatalf("seed %d: secret %d has %d bytes, MinLen says %d", seed, i, n, floor)
			}
		}
	}
	if got := docSecrets(nil).MinLen(); got < 40 {
		t.Fatalf("MinLen = %d: too small to skip anything", got)
	}
}
