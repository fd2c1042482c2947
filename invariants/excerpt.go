package invariants

import (
	"cmp"
	"fmt"
	"math/bits"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/durasim/durasim/internal/reuse"
	"github.com/durasim/durasim/model"
)

// Excerpts: no string the system hands out — an event's tenant, key or
// text, any string reachable from a DLQ envelope or an audit entry, found
// by reflection so a field added later is checked too — may hold 12 bytes
// in a row of any document text or raw error, nor a canary token. Each
// string is judged once, as it is handed out (an event's as it arrives,
// the final state's at the end), against an index of the secrets' windows
// (excerptIndex); what it holds is reported at the end, in the order of the
// events that carried it, unless it was reported whole by then. The same
// scan tells whether a string can hold a whole secret at all, which
// secretIndex then looks for.

// CanaryPrefix starts the canary token planted in every generated document
// (a host's workload may plant its own): a string holding it leaked a
// document whatever else it holds.
const CanaryPrefix = "CANARY-"

// excerptWindow is the shortest excerpt that counts as a leak.
const excerptWindow = secretWindow

// checked is a string the system handed out, where it was, and the event
// that proves it (0: the final state). Where it was is named only when a
// violation needs it: most runs report none, and building a name for
// every string of every DLQ entry was most of the check's allocations.
type checked struct {
	val   string
	job   model.JobID
	seq   uint64
	final bool            // read from the final state (events were judged as they came)
	root  string          // "DLQ entry", "audit entry", "key", "tenant"; "" for an event's string
	event model.EventKind // an event's string: the first event that carried it
	what  string          // and which of its strings: "text", "key", "tenant"
	field string          // the field of a final-state entry, "" for an event's string
	index int             // the element of a slice field, -1 for none
	// excerpt is the string's verdict (excerptOf): an event's, as it
	// came; a final-state string's, from finishHygiene.
	excerpt int32
}

// where names the string's place: "DLQ entry of j3: SchemaPaths[0]".
func (c *checked) where() string {
	if c.field == "" {
		return c.rootName()
	}
	w := c.rootName() + " of " + c.job.String() + ": " + c.field
	if c.index >= 0 {
		w += "[" + strconv.Itoa(c.index) + "]"
	}
	return w
}

// rootName is what holds the string: "DLQ entry", "commit event key"...
// (built only for what is reported).
func (c *checked) rootName() string {
	if c.what != "" {
		return c.event.String() + " event " + c.what
	}
	return c.root
}

// Verdicts of the excerpt check on one string (excerptOf), besides the
// index of the first secret it shares a window with.
const (
	noExcerpt     = -2 // no canary, no window of any secret
	canaryExcerpt = -1 // a canary token
)

// noteText remembers an event's text, once per distinct text, and reports
// whether it is new. Many events carry the very string an earlier one did
// (a code's own text, a fault's name): a slot picked by where its bytes lie
// holds a text noted this seed, and the very same string there needs no
// look-up (two pointers and two lengths, where the map would hash it).
func (s *Suite) noteText(e *model.Event) bool {
	slot := &s.textSlots[uintptr(unsafe.Pointer(unsafe.StringData(e.Text)))>>4%uintptr(len(s.textSlots))]
	if unsafe.StringData(*slot) == unsafe.StringData(e.Text) && len(*slot) == len(e.Text) {
		return false
	}
	*slot = e.Text
	if _, ok := s.texts[e.Text]; ok {
		return false
	}
	s.texts[e.Text] = struct{}{}
	return true
}

// noteStrings judges an event's key and tenant when they are not its
// job's (those are judged with the job), once per distinct string: only
// for excerpts and canaries, at the end.
func (s *Suite) noteStrings(e *model.Event) {
	if e.Key == "" && e.Tenant == "" {
		return // (most events with no job carry neither)
	}
	for _, f := range [...]struct{ what, val string }{{"key", e.Key}, {"tenant", e.Tenant}} {
		if f.val == "" {
			continue
		}
		if _, ok := s.others[f.val]; !ok {
			s.others[f.val] = struct{}{}
			s.noteExcerpt(checked{event: e.Kind, what: f.what, val: f.val, job: e.Job, seq: e.Seq, index: -1}, excerptOf(s.excerpts.find(f.val)))
		}
	}
}

// noteExcerpt keeps an event's string holding a canary or an excerpt, for
// finishExcerpts to report unless the string was reported whole by then:
// each string is judged once, as it comes, and a clean run keeps none.
func (s *Suite) noteExcerpt(c checked, excerpt int32) {
	if excerpt != noExcerpt {
		c.excerpt = excerpt
		s.excerptHits = append(s.excerptHits, c)
	}
}

// excerptOf is the excerpt check's verdict on a string, given the first
// secret it shares a window with and whether it holds a canary
// (excerptIndex.find).
func excerptOf(secret int32, canary bool) int32 {
	switch {
	case canary:
		return canaryExcerpt
	case secret >= 0:
		return secret
	}
	return noExcerpt
}

// handedOut lists the strings judged at the end: those events carried
// that were found holding a canary or an excerpt as they came (the jobs'
// keys and tenants, the event texts, the other keys and tenants), then
// every string reachable from the DLQ and the audit log.
func (s *Suite) handedOut(v *finalView) []checked {
	out := append(s.scratchChecked[:0], s.excerptHits...)
	for i := range v.f.DLQ {
		env := &v.f.DLQ[i]
		at := checked{root: "DLQ entry", job: env.Job, seq: s.dlqSeqOf(env.Job), final: true, index: -1}
		out = walkStrings(out, reflect.ValueOf(env).Elem(), at)
	}
	for i := range v.f.Audit {
		a := &v.f.Audit[i]
		out = walkStrings(out, reflect.ValueOf(a).Elem(), checked{root: "audit entry", job: a.OldJob, final: true, index: -1})
	}
	s.scratchChecked = out
	return out
}

// walkStrings appends every string reachable from v, placed as at says:
// fields, elements of slices, arrays and maps (keys sorted by their text),
// through pointers and interfaces.
func walkStrings(out []checked, v reflect.Value, at checked) []checked {
	switch v.Kind() {
	case reflect.String:
		if v.Len() > 0 {
			at.val = v.String()
			out = append(out, at)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range v.NumField() {
			if f := t.Field(i); f.IsExported() {
				in := at
				in.field = joinField(at.field, f.Name)
				out = walkStrings(out, v.Field(i), in)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			in := at
			if in.index >= 0 { // a slice in a slice: name the outer element
				in.field += "[" + strconv.Itoa(in.index) + "]"
			}
			in.index = i
			out = walkStrings(out, v.Index(i), in)
		}
	case reflect.Map:
		keys := v.MapKeys()
		sortValues(keys)
		for _, k := range keys {
			in := at
			in.field += "{" + fmt.Sprint(k.Interface()) + "}"
			out = walkStrings(out, k, in)
			out = walkStrings(out, v.MapIndex(k), in)
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			out = walkStrings(out, v.Elem(), at)
		}
	}
	return out
}

// joinField names a field under another: "Tokens.Model".
func joinField(outer, field string) string {
	if outer == "" {
		return field
	}
	return outer + "." + field
}

// finishExcerpts reports every handed-out string whose verdict is a
// canary or an excerpt of a secret, in the order of the events that
// carried them (sorting only what is reported keeps the common, clean run
// from paying for it).
func (s *Suite) finishExcerpts(strs []checked, out *violations) {
	found := s.scratchFound[:0]
	for i := range strs {
		if ex := strs[i].excerpt; ex != noExcerpt {
			found = append(found, excerptFound{str: int32(i), secret: int(ex)})
		}
	}
	s.scratchFound = found
	slices.SortFunc(found, func(a, b excerptFound) int {
		x, y := &strs[a.str], &strs[b.str]
		// (ties, one string in two places, keep the strings' order)
		return cmp.Or(cmp.Compare(x.seq, y.seq), strings.Compare(x.rootName(), y.rootName()), strings.Compare(x.val, y.val), cmp.Compare(a.str, b.str))
	})
	for _, f := range found {
		c := &strs[f.str]
		if f.secret < 0 {
			out.add(DLQHygiene, c.job, fmt.Sprintf("%s holds a document's canary token", c.where()), c.seq)
			continue
		}
		out.add(DLQHygiene, c.job, fmt.Sprintf("%s holds an excerpt of %d bytes or more of document text or raw error (secret %d)",
			c.where(), excerptWindow, f.secret+1), c.seq)
	}
}

// excerptFound is a handed-out string found holding a secret's excerpt
// (or, secret -1, a canary).
type excerptFound struct {
	str    int32
	secret int
}

// sortValues orders map keys by their printed form.
func sortValues(vs []reflect.Value) {
	slices.SortFunc(vs, func(a, b reflect.Value) int {
		return strings.Compare(fmt.Sprint(a.Interface()), fmt.Sprint(b.Interface()))
	})
}

// excerptIndex finds the first secret a string shares a window of
// excerptWindow bytes with. It holds the secrets' bytes and indexes the
// four bytes at every eighth position of each (a run): a window of twelve
// bytes holds a run whole, so a string shares a window with a secret only
// where four of its bytes equal one of the secret's runs, and each such
// hit is extended both ways to see whether twelve bytes in a row agree.
// Each string is scanned once (its verdict kept), as it is handed out; a
// bitmap of the runs' grams skips most of its positions without a probe.
type excerptIndex struct {
	src   SecretSource
	built bool    // built at the first string judged (a seed's secrets are new)
	short bool    // some secret is shorter than a window (yet not empty)
	buf   []byte  // the secrets' bytes, one after another
	ends  []int32 // secret k ends at ends[k] in buf
	runs  []excerptRun
	heads []int32 // by hash of a run's bytes: the last run added with that hash, + 1 (0: none)
	shift uint8   // a hash is the top bits of the multiplied run: 32 - log2(len(heads))
	// grams has bit gram(w) set for the bytes w of every run.
	grams [1 << 16 / 64]uint64
}

// excerptRun is the four bytes at pos in buf, of secret secret; next is
// the run added before it with the same hash (-1: none).
type excerptRun struct {
	word              uint32
	pos, secret, next int32
}

// reset makes x an index of secrets, to be built when first needed.
func (x *excerptIndex) reset(secrets SecretSource) { x.src, x.built = secrets, false }

// build reads every secret and indexes its runs, reusing the arrays of
// the previous seed (none holds a string).
func (x *excerptIndex) build() {
	x.built, x.short = true, false
	buf, ends := x.buf[:0], x.ends[:0]
	nruns := 0
	for k := range x.src.Len() {
		from := len(buf)
		buf = x.src.AppendSecret(buf, k)
		ends = append(ends, int32(len(buf)))
		if n := len(buf) - from; n >= excerptWindow {
			nruns += (n-4)/8 + 1
		} else {
			x.short = x.short || n > 0
		}
	}
	x.buf, x.ends = buf, ends
	n := max(2, 1<<bits.Len(uint(2*nruns))) // at most half as many runs as heads: short chains
	x.shift = uint8(32 - bits.TrailingZeros(uint(n)))
	x.heads = reuse.Resized(x.heads, n)
	clear(x.grams[:])
	runs, from := slices.Grow(x.runs[:0], nruns), 0
	for k, end := range ends {
		if int(end)-from >= excerptWindow {
			for p := from; p+4 <= int(end); p += 8 {
				w := load4(buf, p)
				g, h := gram(w), x.hash(w)
				x.grams[g/64] |= 1 << (g % 64)
				runs = append(runs, excerptRun{word: w, pos: int32(p), secret: int32(k), next: x.heads[h] - 1})
				x.heads[h] = int32(len(runs))
			}
		}
		from = int(end)
	}
	x.runs = runs
	g := gram(canaryWord) // find looks for a canary where its first four bytes are
	x.grams[g/64] |= 1 << (g % 64)
}

// canaryWord is the first four bytes of CanaryPrefix (load4).
var canaryWord = load4(CanaryPrefix, 0)

// hash is the head a run's bytes w are chained from.
func (x *excerptIndex) hash(w uint32) uint32 { return w * 0x9e3779b1 >> (x.shift & 31) }

// find returns the first secret val shares a window with (-1: none), and
// whether val holds a canary token: the scan that looks for the one finds
// the other, at four bytes whose gram is set.
func (x *excerptIndex) find(val string) (first int32, canary bool) {
	if !x.built {
		x.build()
	}
	first = -1
	if len(val) < excerptWindow {
		return first, strings.Contains(val, CanaryPrefix)
	}
	for i := 0; ; i++ {
		if i = x.nextGram(val, i); i+4 > len(val) {
			break
		}
		w := load4(val, i)
		if w == canaryWord && strings.HasPrefix(val[i:], CanaryPrefix) {
			canary = true
		}
		for k := x.heads[x.hash(w)] - 1; k >= 0; k = x.runs[k].next {
			if r := &x.runs[k]; r.word == w && (first < 0 || r.secret < first) && x.shares(val, i, r) {
				first = r.secret
			}
		}
	}
	return first, canary
}

// nextGram returns the first position from i on whose four bytes have
// their gram in x.grams, or len(val). It runs at every byte of every
// string: eight bytes are loaded at once and the grams at the first five
// positions tested from that word, a shift apart.
func (x *excerptIndex) nextGram(val string, i int) int {
	grams := &x.grams
	has := func(w uint32) bool { g := gram(w); return grams[g/64]&(1<<(g%64)) != 0 }
	for ; i+8 <= len(val); i += 5 {
		v := load8(val, i)
		switch {
		case has(uint32(v)):
			return i
		case has(uint32(v >> 8)):
			return i + 1
		case has(uint32(v >> 16)):
			return i + 2
		case has(uint32(v >> 24)):
			return i + 3
		case has(uint32(v >> 32)):
			return i + 4
		}
	}
	for ; i+4 <= len(val); i++ {
		if has(load4(val, i)) {
			return i
		}
	}
	return len(val)
}

// load8 is the eight bytes of s at i, little-endian (one load).
func load8(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// shares reports whether val, whose four bytes at i are run r's, holds
// excerptWindow bytes in a row of r's secret around them.
func (x *excerptIndex) shares(val string, i int, r *excerptRun) bool {
	from, to, p := int32(0), x.ends[r.secret], int(r.pos)
	if r.secret > 0 {
		from = x.ends[r.secret-1]
	}
	n := 4
	for n < excerptWindow && i+n < len(val) && p+n < int(to) && val[i+n] == x.buf[p+n] {
		n++
	}
	for l := 1; n < excerptWindow && l <= i && p-l >= int(from) && val[i-l] == x.buf[p-l]; l++ {
		n++
	}
	return n >= excerptWindow
}

// load4 is the four bytes of s at i, little-endian (one load).
func load4[S string | []byte](s S, i int) uint32 {
	s = s[i : i+4]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// gram folds four bytes (load4) into 16 bits.
func gram(w uint32) uint32 { return w * 0x9e3779b1 >> 16 }
