package invariants

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/durasim/durasim/model"
)

// Excerpts: no string the system hands out — an event's tenant, key or
// text, any string reachable from a DLQ envelope or an audit entry, found
// by reflection so a field added later is checked too — may hold 12 bytes
// in a row of any document text or raw error, nor a canary token. Whole
// secrets are looked for as events arrive (secretIndex); excerpts at the
// end: the strings are few and the documents many, so the strings' windows
// are indexed and every secret's windows are looked up in that index.

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

// noteText remembers an event's text for the excerpt check, once per
// distinct text, and reports whether it is new.
func (s *Suite) noteText(e *model.Event) bool {
	if _, ok := s.texts[e.Text]; ok {
		return false
	}
	s.texts[e.Text] = textSeen{seq: e.Seq, job: e.Job, kind: e.Kind}
	return true
}

// noteStrings remembers an event's key and tenant when they are not its
// job's (those are checked with the job), once per distinct string.
func (s *Suite) noteStrings(e *model.Event) {
	for _, f := range [...]struct{ what, val string }{{"key", e.Key}, {"tenant", e.Tenant}} {
		if f.val == "" {
			continue
		}
		if _, ok := s.others[f.val]; !ok {
			s.others[f.val] = textSeen{seq: e.Seq, job: e.Job, kind: e.Kind, what: f.what}
		}
	}
}

// textSeen is the first event that carried a string, and which field.
type textSeen struct {
	seq  uint64
	job  model.JobID
	kind model.EventKind
	what string // "" for the text
}

// handedOut lists every string the run handed out, in a stable order: the
// event texts by first appearance, the jobs' keys and tenants, and every
// string reachable from the DLQ and the audit log.
func (s *Suite) handedOut(v *finalView) []checked {
	out := s.scratchChecked[:0]
	// The maps' order is random: finishExcerpts orders what it reports.
	//det:sorted (by finishExcerpts)
	for text, t := range s.texts {
		out = append(out, checked{event: t.kind, what: "text", val: text, job: t.job, seq: t.seq, index: -1})
	}
	//det:sorted (by finishExcerpts)
	for v, t := range s.others {
		out = append(out, checked{event: t.kind, what: t.what, val: v, job: t.job, seq: t.seq, index: -1})
	}
	for id := range s.njobs {
		if j := s.at(id); j.enqueued {
			out = append(out, checked{root: "key", val: j.key, job: model.JobID(id), seq: j.enqSeq, index: -1},
				checked{root: "tenant", val: j.tenant, job: model.JobID(id), seq: j.enqSeq, index: -1})
		}
	}
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

// finishExcerpts reports every handed-out string holding a canary or an
// excerpt of a secret, except those flagged already (flagged[i]), in the
// order of the events that carried them (strs is in map order: sorting
// only what is reported keeps the common, clean run from paying for it).
func (s *Suite) finishExcerpts(strs []checked, flagged []bool, out *violations) {
	x := &s.excerpts
	x.reset()
	// The secrets' bytes, read once, and every four bytes of them in
	// x.grams: a window of a string can equal a secret's only if each of
	// its four-byte runs occurs in some secret, so add indexes no other.
	secrets, ends := s.secretBuf[:0], s.secretEnds[:0]
	if src := s.secrets.secrets; src != nil {
		for k := range src.Len() {
			from := len(secrets)
			secrets = src.AppendSecret(secrets, k)
			ends = append(ends, int32(len(secrets)))
			x.noteGrams(secrets[from:])
		}
	}
	s.secretBuf, s.secretEnds = secrets, ends
	found := s.scratchFound[:0]
	for i := range strs {
		if flagged[i] {
			continue
		}
		if strings.Contains(strs[i].val, CanaryPrefix) {
			flagged[i] = true
			found = append(found, excerptFound{str: int32(i), secret: -1})
			continue
		}
		x.add(strs[i].val, int32(i))
	}
	if !x.empty() {
		from := int32(0)
		for k, end := range ends {
			x.scan(secrets[from:end], func(i int32) {
				if !flagged[i] {
					flagged[i] = true
					found = append(found, excerptFound{str: i, secret: k})
				}
			})
			from = end
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

// excerptIndex indexes the windows of a few strings and finds, in a long
// text, every window they share with it. A bitmap of a hash of the
// windows' first four bytes lets the scan skip most positions of a text
// without hashing the whole window.
//
// A window that occurs more than once (event texts share their wording:
// "extracted ...", a template's dozens of bytes in every text) is one
// head in the table with its other occurrences chained behind it, in the
// order they were added: in a table of every occurrence, each copy of a
// window probed past all the earlier ones, and indexing cost the square
// of how often a window recurs (a quarter of a model seed's instructions).
type excerptIndex struct {
	strs   []string
	slots  []int32 // head entry index + 1 by window hash (open addressing; 0: empty)
	ents   []excerptEntry
	heads  int                  // distinct windows: entries in slots
	starts [1 << 16 / 64]uint64 // bit prefix4(w) set: some window starts as w does
	// grams has bit prefix4 set for every four bytes of every secret
	// (reset clears both bitmaps whole: 16 KiB, less than keeping a list
	// of the words set cost at every byte).
	grams [1 << 16 / 64]uint64
}

// noteGrams sets in x.grams every four bytes of secret b.
func (x *excerptIndex) noteGrams(b []byte) {
	for i := 0; i+4 <= len(b); i++ {
		g := gram(load4(b, i))
		x.grams[g/64] |= 1 << (g % 64)
	}
}

// load4 is the four bytes of s at i, little-endian (one load).
func load4[S string | []byte](s S, i int) uint32 {
	s = s[i : i+4]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// gram folds four bytes (load4) into 16 bits: prefix4 of them.
func gram(w uint32) uint32 { return w * 0x9e3779b1 >> 16 }

// excerptEntry is a window of string str starting at off (its words a
// and b: windowWords); next is the following occurrence of the same
// window (-1: none), and a head's last its chain's last entry.
type excerptEntry struct {
	hash, a    uint64
	b          uint32
	str, off   int32
	next, last int32
}

func (x *excerptIndex) reset() {
	x.strs = x.strs[:0]
	x.ents = x.ents[:0]
	x.heads = 0
	clear(x.slots)
	clear(x.starts[:])
	clear(x.grams[:])
}

func (x *excerptIndex) empty() bool { return len(x.ents) == 0 }

// add indexes every window of val, which is string number id.
func (x *excerptIndex) add(val string, id int32) {
	for len(x.strs) <= int(id) {
		x.strs = append(x.strs, "")
	}
	x.strs[id] = val
	if len(val) < excerptWindow {
		return
	}
	// Every four bytes of the string that some secret holds, not only
	// the windows' first: scan looks at every eighth position of a
	// secret, and any window shared with it has four of its bytes there.
	// A window is indexed only if each of its nine runs of four bytes is
	// in x.grams (noteGrams): no other can be a secret's. The window
	// starting at w holds the runs at w..w+8; absent is the last run
	// seen that no secret holds.
	absent := -1
	for i := 0; i+4 <= len(val); i++ {
		g := gram(load4(val, i))
		if x.grams[g/64]&(1<<(g%64)) == 0 {
			absent = i
			continue
		}
		x.starts[g/64] |= 1 << (g % 64)
		if w := i - (excerptWindow - 4); w > absent {
			x.insert(val[w:w+excerptWindow], id, int32(w))
		}
	}
}

// prefix4 folds a window's first four bytes into 16 bits.
func prefix4(a, b, c, d byte) uint32 {
	return gram(uint32(a) | uint32(b)<<8 | uint32(c)<<16 | uint32(d)<<24)
}

// insert adds window w, at off in string str: behind its head if the
// window is there already, else as a new head.
func (x *excerptIndex) insert(w string, str, off int32) {
	if 2*(x.heads+1) > len(x.slots) {
		x.grow()
	}
	a, b := windowWords(w)
	h := mixWindow(a, b)
	i := int32(len(x.ents))
	x.ents = append(x.ents, excerptEntry{hash: h, a: a, b: uint32(b), str: str, off: off, next: -1, last: i})
	mask := uint64(len(x.slots) - 1)
	for at := h & mask; ; at = (at + 1) & mask {
		if x.slots[at] == 0 {
			x.slots[at] = i + 1
			x.heads++
			return
		}
		if head := &x.ents[x.slots[at]-1]; head.a == a && head.b == uint32(b) {
			x.ents[head.last].next = i
			head.last = i
			x.ents[i].last = -1 // not a head
			return
		}
	}
}

// place puts head entry i in the first free slot of its probe.
func (x *excerptIndex) place(i int32) {
	mask := uint64(len(x.slots) - 1)
	for at := x.ents[i].hash & mask; ; at = (at + 1) & mask {
		if x.slots[at] == 0 {
			x.slots[at] = i + 1
			return
		}
	}
}

func (x *excerptIndex) grow() {
	n := max(64, 2*len(x.slots))
	x.slots = make([]int32, n)
	for i := range x.ents {
		if x.ents[i].last >= 0 { // a head (an entry behind one has last -1)
			x.place(int32(i))
		}
	}
}

// scan calls found with the string of every window of text that occurs in
// an indexed string, once per occurrence, in the order they were added.
func (x *excerptIndex) scan(text []byte, found func(str int32)) {
	if len(x.slots) == 0 {
		return
	}
	mask := uint64(len(x.slots) - 1)
	last := len(text) - excerptWindow // the last window's start
	// A window [i, i+12) holds the four bytes at the multiple of 8 in
	// [i, i+7]: only those positions are looked up in the bitmap, and a
	// hit tries the eight windows that hold them there.
	for p := 0; p <= last+7 && p+4 <= len(text); p += 8 {
		if g := prefix4(text[p], text[p+1], text[p+2], text[p+3]); x.starts[g/64]&(1<<(g%64)) == 0 {
			continue
		}
		for i := max(0, p-7); i <= min(p, last); i++ {
			a, b := windowWords(text[i : i+excerptWindow])
			for at := mixWindow(a, b) & mask; x.slots[at] != 0; at = (at + 1) & mask {
				if head := &x.ents[x.slots[at]-1]; head.a == a && head.b == uint32(b) {
					for k := x.slots[at] - 1; k >= 0; k = x.ents[k].next {
						found(x.ents[k].str)
					}
					break // the window's only head
				}
			}
		}
	}
}
