package sim

import (
	"math"
	"strconv"

	"github.com/durasim/durasim/internal/reuse"
	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/scheduler"
)

// tenantNames are valid tenant ids (seed 000's ^[a-z][a-z0-9-]{1,32}$).
// The last three sit at the edges of that pattern — two characters,
// thirty-three, and every edge of each character class it allows ('a'
// and 'z', '0' and '9', '-', first and later) — so a run with many
// tenants shows that the key builder accepts exactly what it must.
var tenantNames = [...]string{"acme", "globex", "initech", "umbrella", "hooli", "stark", "wayne", "tyrell",
	"ab", "z-0a9z", "t0123456789-abcdefghijklmnopqrstu"}

// Doc is one document of the workload. Its Text is the content that must
// never leak into the DLQ, audit, metrics or traces; it carries PII (a CPF
// number and an e-mail) and a canary token, so leaks are easy to recognise. The text is built
// from two drawn numbers when asked, not kept: a million-document run
// would otherwise hold a quarter of a gigabyte of it.
type Doc struct {
	Index   int32 // 1-based, as in plans (doc=3)
	invoice int32 // the invoice number in the text
	Tenant  string
	ID      string // document id: the same ids recur in every tenant
	// Version is the operationVersion its client sends: 1, or with
	// Config.EdgeVersions for one document in eight the largest a key
	// allows (math.MaxInt32), the edge of the version range as tenantNames
	// has the edges of the tenant pattern: such a job cannot be
	// reprocessed (no next version).
	Version  int
	cpf      int64  // the CPF number in the text
	Payload  uint64 // hash of tenant, id and text: the payload hash of its key
	TextHash uint64
	Arrival  model.Time
	Tokens   int64      // tokens one extraction attempt spends
	Latency  model.Time // extraction latency when the provider answers
}

// Text is the document's content.
func (d *Doc) Text() string { return string(d.appendText(nil)) }

func (d *Doc) appendText(b []byte) []byte {
	if d.invoice >= 10000 && d.invoice <= 99999 && d.cpf >= 0 && d.cpf < 1_000_000_000 {
		// The words up to the index have a fixed length with a five-digit
		// invoice (every drawn one): filled in place in one array, and
		// appended at once (the workload builds a text per document per seed).
		var head [len(textHead)]byte
		copy(head[:], textHead)
		for i, v := 11, d.invoice; i >= 7; i, v = i-1, v/10 {
			head[i] = byte('0' + v%10)
		}
		putCPF((*[14]byte)(head[18:32]), d.cpf)
		b = append(b, head[:]...)
	} else {
		b = append(b, "Fatura "...)
		b = strconv.AppendInt(b, int64(d.invoice), 10)
		b = append(b, ", CPF "...) // no tenant id: ids are public, and any 12 bytes of a text are secret
		b = appendCPF(b, d.cpf)
		b = append(b, ", contato cliente"...)
	}
	b = strconv.AppendInt(b, int64(d.Index), 10)
	b = append(b, "@example.com, ref "...)
	return appendCanary(b, d)
}

// appendCanary appends the document's canary token: invariants.CanaryPrefix
// and eight hex digits drawn from the document's numbers (no draw of its
// own, so the workload stream is unchanged). Any string holding it
// anywhere leaked a document.
func appendCanary(b []byte, d *Doc) []byte {
	b = append(b, invariants.CanaryPrefix...)
	v := uint32(d.cpf)*2654435761 ^ uint32(d.invoice)<<7 ^ uint32(d.Index)
	const digits = "0123456789abcdef"
	for shift := 28; shift >= 0; shift -= 4 {
		b = append(b, digits[v>>uint(shift)&0xf])
	}
	return b
}

// ParseErr is what a failing parser would say: it quotes the text.
func (d *Doc) ParseErr() string { return string(d.appendParseErr(nil)) }

func (d *Doc) appendParseErr(b []byte) []byte {
	b = append(b, "unexpected token near '"...)
	start := len(b)
	b = d.appendText(b)
	return append(b[:min(len(b), start+40)], '\'')
}

// appendQuotedStart is appendParseErr of a document whose text is text.
func appendQuotedStart(b, text []byte) []byte {
	b = append(b, "unexpected token near '"...)
	b = append(b, text[:min(len(text), 40)]...)
	return append(b, '\'')
}

// makeWorkload draws the documents from the workload stream. Document k of
// a larger workload is the same as document k of a smaller one with the
// same seed, which is what lets the shrinker drop documents.
func makeWorkload(r *scheduler.Stream, cfg Config, docs []Doc, texts *textArena) []Doc {
	docs = reuse.Resized(docs, int(cfg.Docs))
	texts.reset(int(cfg.Docs))
	at := model.Time(0)
	// Swarm testing applies to the workload too: each seed has its own
	// share of long documents (none to three in four), the ones that need
	// heartbeats and give zombies time to do harm.
	longShare := [...]scheduler.PPM{0, 100_000, 250_000, 500_000, 750_000}[r.IntN(5)]
	buf := make([]byte, 0, 128)
	for i := range docs {
		d := &docs[i]
		d.Index = int32(i + 1)
		d.Tenant = tenantNames[i%int(cfg.Tenants)]
		d.ID = docID(i/int(cfg.Tenants) + 1)
		d.Version = 1
		if cfg.EdgeVersions && i%8 == 5 {
			d.Version = math.MaxInt32
		}
		d.cpf = r.Int64N(1_000_000_000)
		d.invoice = int32(r.Int64N(90000) + 10000)
		buf = d.appendText(buf[:0])
		d.Payload, d.TextHash = payloadHashes(d.Tenant, d.ID, buf)
		texts.keep(buf)
		d.Tokens = 500 + r.Int64N(3500)
		// A model call on an invoice takes seconds (seed 000's 40 ms is a
		// fixed synthetic constant, not a measured latency).
		d.Latency = model.Time(scheduler.Millisecond) * model.Time(500+r.Int64N(5500))
		if r.Chance(longShare) {
			d.Latency = model.Time(scheduler.Second) * model.Time(12+r.Int64N(40))
		}
		d.Arrival = at
		if cfg.ArrivalGap > 0 {
			at += r.Int64N(2*cfg.ArrivalGap + 1)
		}
	}
	return docs
}

// docIDs are the ids of a small workload's documents, spelled once (an id
// recurs in every tenant and every seed).
var docIDs = func() (ids [64]string) {
	for i := range ids {
		ids[i] = "d" + strconv.Itoa(i+1)
	}
	return ids
}()

// docID is document id n: "d" and n.
func docID(n int) string {
	if n <= len(docIDs) {
		return docIDs[n-1]
	}
	return "d" + strconv.Itoa(n)
}

// appendCPF writes n (0 <= n < 10⁹) as a CPF number: nine digits as
// ddd.ddd.ddd, then a dash, the first digit of n%97 and a zero. (Digit by
// digit into a fixed array: the workload builds one per document per seed.)
func appendCPF(b []byte, n int64) []byte {
	var cpf [14]byte
	putCPF(&cpf, n)
	return append(b, cpf[:]...)
}

// textHead is a text's words up to the index, with a five-digit invoice
// and a CPF as placeholders (appendText fills them in).
const textHead = "Fatura 00000, CPF 000.000.000-00, contato cliente"

// putCPF writes n as a CPF number (appendCPF) into cpf.
func putCPF(cpf *[14]byte, n int64) {
	v := uint64(n)
	for i := 10; i >= 0; i-- {
		if i == 3 || i == 7 {
			cpf[i] = '.'
			continue
		}
		cpf[i] = byte('0' + v%10)
		v /= 10
	}
	check := n % 97
	for check >= 10 {
		check /= 10
	}
	cpf[11], cpf[12], cpf[13] = '-', byte('0'+check), '0'
}

// FNV-1a's parameters.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// payloadHashes returns FNV-1a of tenant, id and text joined by NUL bytes
// (the payload hash) and of text alone, in one pass over the text and
// with no allocation.
func payloadHashes(tenant, id string, text []byte) (payload, textHash uint64) {
	payload = fnvString(fnvString(fnvOffset, tenant)*fnvPrime, id) * fnvPrime // each NUL: h ^= 0; h *= prime
	textHash = fnvOffset
	// (Four bytes a round: the loop's own steps are half its work.)
	for ; len(text) >= 4; text = text[4:] {
		c0, c1, c2, c3 := uint64(text[0]), uint64(text[1]), uint64(text[2]), uint64(text[3])
		payload = ((((payload^c0)*fnvPrime^c1)*fnvPrime^c2)*fnvPrime ^ c3) * fnvPrime
		textHash = ((((textHash^c0)*fnvPrime^c1)*fnvPrime^c2)*fnvPrime ^ c3) * fnvPrime
	}
	for _, c := range text {
		payload = (payload ^ uint64(c)) * fnvPrime
		textHash = (textHash ^ uint64(c)) * fnvPrime
	}
	return payload, textHash
}

func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * fnvPrime
	}
	return h
}

// Workload returns the documents a run of cfg with seed submits (after
// cfg.Only), exactly as Run draws them: other runners (benchmarks, SQL
// backends) drive the same workload.
func Workload(cfg Config, seed uint64) []Doc { return workloadInto(nil, cfg, seed, nil) }

// workloadInto is Workload drawn into docs' array when it is large enough.
func workloadInto(docs []Doc, cfg Config, seed uint64, texts *textArena) []Doc {
	var r scheduler.Stream // (on the stack: only the workload draws from it)
	r.ResetDerived(seed, scheduler.StreamWorkload)
	return selectDocs(makeWorkload(&r, cfg, docs, texts), cfg.Only)
}

// textArena keeps the texts of a small workload as they are drawn, so the
// suite's hygiene checks read them instead of formatting them again (a
// large workload's would take too much memory: those are built when asked).
type textArena struct {
	on  bool
	b   []byte
	end []int32 // the text of document k (1-based) ends at end[k-1]
}

// maxKeptTexts is the largest workload whose texts are kept (about 100
// bytes each).
const maxKeptTexts = 4096

func (t *textArena) reset(docs int) {
	if t == nil {
		return
	}
	t.on, t.b, t.end = docs <= maxKeptTexts, t.b[:0], t.end[:0]
}

func (t *textArena) keep(text []byte) {
	if t != nil && t.on {
		t.b = append(t.b, text...)
		t.end = append(t.end, int32(len(t.b)))
	}
}

// text is the kept text of d, if kept.
func (t *textArena) text(d *Doc) ([]byte, bool) {
	if t == nil || !t.on || int(d.Index) > len(t.end) {
		return nil, false
	}
	start := int32(0)
	if d.Index > 1 {
		start = t.end[d.Index-2]
	}
	return t.b[start:t.end[d.Index-1]], true
}

// Secrets numbers the document texts and raw errors of a workload (text
// then error, document by document): what must never leak into the DLQ,
// audit, metrics or traces. Each is built when asked.
func Secrets(docs []Doc) invariants.SecretSource { return docSecrets{docs: docs} }

// docSecrets is the workload as an invariants.SecretSource: texts read from
// the arena when it kept them, built otherwise.
type docSecrets struct {
	docs  []Doc
	texts *textArena
}

func (d docSecrets) Len() int { return 2 * len(d.docs) }

// MinLen is a length no secret is shorter than, read off the formats: a
// text has its fixed words, a five-digit invoice, a fourteen-character CPF
// and at least a one-digit index; a parse error quotes the first 40 bytes
// of a text. The suite skips texts shorter than that without looking.
func (d docSecrets) MinLen() int {
	text := len("Fatura ") + 5 + len(", CPF ") + 14 + len(", contato cliente") + 1 + len("@example.com, ref ") +
		len(invariants.CanaryPrefix) + 8
	parseErr := len("unexpected token near '") + min(40, text) + len("'")
	return min(text, parseErr)
}

func (d docSecrets) AppendSecret(dst []byte, i int) []byte {
	doc := &d.docs[i/2]
	text, kept := d.texts.text(doc)
	switch {
	case !kept && i%2 == 0:
		return doc.appendText(dst)
	case !kept:
		return doc.appendParseErr(dst)
	case i%2 == 0:
		return append(dst, text...)
	}
	return appendQuotedStart(dst, text)
}

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
