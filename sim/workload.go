package sim

import (
	"hash/fnv"
	"strconv"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/scheduler"
)

// tenantNames are valid tenant ids (seed 000's ^[a-z][a-z0-9-]{1,32}$).
var tenantNames = []string{"acme", "globex", "initech", "umbrella", "hooli", "stark", "wayne", "tyrell"}

// Doc is one document of the workload. Its Text is the content that must
// never leak into the DLQ, audit, metrics or traces; it carries PII (a CPF
// number and an e-mail) so leaks are easy to recognise.
type Doc struct {
	Index    int32 // 1-based, as in plans (doc=3)
	Tenant   string
	ID       string // document id: the same ids recur in every tenant
	Text     string
	Payload  uint64 // hash of tenant, id and text: the payload hash of its key
	TextHash uint64
	Arrival  model.Time
	Tokens   int64      // tokens one extraction attempt spends
	Latency  model.Time // extraction latency when the provider answers
	ParseErr string     // what a failing parser would say: quotes the text
}

// makeWorkload draws the documents from the workload stream. Document k of
// a larger workload is the same as document k of a smaller one with the
// same seed, which is what lets the shrinker drop documents.
func makeWorkload(r *scheduler.Stream, cfg Config) []Doc {
	docs := make([]Doc, cfg.Docs)
	at := model.Time(0)
	// Swarm testing applies to the workload too: each seed has its own
	// share of long documents (none to three in four), the ones that need
	// heartbeats and give zombies time to do harm.
	longShare := [...]scheduler.PPM{0, 100_000, 250_000, 500_000, 750_000}[r.IntN(5)]
	for i := range docs {
		d := &docs[i]
		d.Index = int32(i + 1)
		d.Tenant = tenantNames[i%int(cfg.Tenants)]
		d.ID = "d" + strconv.Itoa(i/int(cfg.Tenants)+1)
		cpf := r.Int64N(1_000_000_000)
		d.Text = "Fatura " + strconv.Itoa(int(r.Int64N(90000)+10000)) + " de " + d.Tenant +
			", CPF " + cpfText(cpf) + ", contato cliente" + strconv.Itoa(i+1) + "@example.com"
		d.Payload = hashText(d.Tenant + "\x00" + d.ID + "\x00" + d.Text)
		d.TextHash = hashText(d.Text)
		d.Tokens = 500 + r.Int64N(3500)
		// A model call on an invoice takes seconds (seed 000's 40 ms is a
		// fixed synthetic constant, not a measured latency).
		d.Latency = model.Time(scheduler.Millisecond) * model.Time(500+r.Int64N(5500))
		if r.Chance(longShare) {
			d.Latency = model.Time(scheduler.Second) * model.Time(12+r.Int64N(40))
		}
		d.ParseErr = "unexpected token near '" + d.Text[:min(len(d.Text), 40)] + "'"
		d.Arrival = at
		if cfg.ArrivalGap > 0 {
			at += r.Int64N(2*cfg.ArrivalGap + 1)
		}
	}
	return docs
}

func cpfText(n int64) string {
	s := strconv.FormatInt(n+1_000_000_000, 10)[1:] // nine digits
	return s[0:3] + "." + s[3:6] + "." + s[6:9] + "-" + strconv.FormatInt(n%97, 10)[0:1] + "0"
}

func hashText(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// secrets lists every document text and raw error of the workload.
// Workload returns the documents a run of cfg with seed submits (after
// cfg.Only), exactly as Run draws them: other runners (benchmarks, SQL
// backends) drive the same workload.
func Workload(cfg Config, seed uint64) []Doc {
	return selectDocs(makeWorkload(scheduler.Derive(seed, scheduler.StreamWorkload), cfg), cfg.Only)
}

// Secrets lists the document texts and raw errors of a workload: what must
// never leak into the DLQ, audit, metrics or traces.
func Secrets(docs []Doc) []string { return secrets(docs) }

// selectDocs keeps only the documents listed in only (all when empty).
func selectDocs(docs []Doc, only []int32) []Doc {
	if len(only) == 0 {
		return docs
	}
	out := make([]Doc, 0, len(only))
	for _, i := range only {
		out = append(out, docs[i-1])
	}
	return out
}

func secrets(docs []Doc) []string {
	out := make([]string, 0, 2*len(docs))
	for _, d := range docs {
		out = append(out, d.Text, d.ParseErr)
	}
	return out
}
