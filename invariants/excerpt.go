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
// that proves it (0: the final state).
type checked struct {
	where string
	val   string
	job   model.JobID
	seq   uint64
	final bool // read from the final state (events were judged as they came)
}

// noteText remembers an event's text for the excerpt check, once per
// distinct text.
func (s *Suite) noteText(e *model.Event) {
	if _, ok := s.texts[e.Text]; !ok {
		s.texts[e.Text] = textSeen{seq: e.Seq, job: e.Job, kind: e.Kind}
	}
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
	//det:sorted (by sortChecked below)
	for text, t := range s.texts {
		out = append(out, checked{where: t.kind.String() + " event text", val: text, job: t.job, seq: t.seq})
	}
	//det:sorted (by sortChecked below)
	for v, t := range s.others {
		out = append(out, checked{where: t.kind.String() + " event " + t.what, val: v, job: t.job, seq: t.seq})
	}
	sortChecked(out) // the maps' order is random; the seqs and fields are not
	for id := range s.njobs {
		if j := s.at(id); j.enqueued {
			out = append(out, checked{where: "key", val: j.key, job: model.JobID(id), seq: j.enqSeq},
				checked{where: "tenant", val: j.tenant, job: model.JobID(id), seq: j.enqSeq})
		}
	}
	for i := range v.f.DLQ {
		env := &v.f.DLQ[i]
		n := len(out)
		out = walkStrings(out, reflect.ValueOf(env).Elem(), "DLQ entry of "+env.Job.String()+":", env.Job)
		for k := n; k < len(out); k++ {
			out[k].seq, out[k].final = s.dlqSeqOf(env.Job), true
		}
	}
	for i := range v.f.Audit {
		a := &v.f.Audit[i]
		n := len(out)
		out = walkStrings(out, reflect.ValueOf(a).Elem(), "audit entry of "+a.OldJob.String()+":", a.OldJob)
		for k := n; k < len(out); k++ {
			out[k].final = true
		}
	}
	s.scratchChecked = out
	return out
}

// walkStrings appends every string reachable from v: fields, elements of
// slices, arrays and maps (keys sorted by their text), through pointers and
// interfaces. path names where the string is.
func walkStrings(out []checked, v reflect.Value, path string, job model.JobID) []checked {
	switch v.Kind() {
	case reflect.String:
		if v.Len() > 0 {
			out = append(out, checked{where: path, val: v.String(), job: job})
		}
	case reflect.Struct:
		t := v.Type()
		for i := range v.NumField() {
			if t.Field(i).IsExported() {
				out = walkStrings(out, v.Field(i), joinPath(path, t.Field(i).Name), job)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			out = walkStrings(out, v.Index(i), path+"["+strconv.Itoa(i)+"]", job)
		}
	case reflect.Map:
		keys := v.MapKeys()
		sortValues(keys)
		for _, k := range keys {
			out = walkStrings(out, k, path+"{key}", job)
			out = walkStrings(out, v.MapIndex(k), path+"["+fmt.Sprint(k.Interface())+"]", job)
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			out = walkStrings(out, v.Elem(), path, job)
		}
	}
	return out
}

// joinPath names a field under path: "DLQ entry of j1: SchemaPaths".
func joinPath(path, field string) string {
	if strings.HasSuffix(path, ":") {
		return path + " " + field
	}
	return path + "." + field
}

// finishExcerpts reports every handed-out string holding a canary or an
// excerpt of a secret, except those flagged already (flagged[i]).
func (s *Suite) finishExcerpts(strs []checked, flagged []bool, out *violations) {
	x := &s.excerpts
	x.reset()
	for i := range strs {
		c := &strs[i]
		if flagged[i] {
			continue
		}
		if strings.Contains(c.val, CanaryPrefix) {
			out.add(DLQHygiene, c.job, fmt.Sprintf("%s holds a document's canary token", c.where), c.seq)
			flagged[i] = true
			continue
		}
		x.add(c.val, int32(i))
	}
	if x.empty() || s.secrets.secrets == nil {
		return
	}
	src := s.secrets.secrets
	for k := range src.Len() {
		s.secretBuf = src.AppendSecret(s.secretBuf[:0], k)
		x.scan(s.secretBuf, func(i int32) {
			if !flagged[i] {
				flagged[i] = true
				c := &strs[i]
				out.add(DLQHygiene, c.job, fmt.Sprintf("%s holds an excerpt of %d bytes or more of document text or raw error (secret %d)",
					c.where, excerptWindow, k+1), c.seq)
			}
		})
	}
}

// sortChecked orders strings by the event that first carried them.
func sortChecked(cs []checked) {
	slices.SortFunc(cs, func(a, b checked) int {
		return cmp.Or(cmp.Compare(a.seq, b.seq), strings.Compare(a.where, b.where), strings.Compare(a.val, b.val))
	})
}

// sortValues orders map keys by their printed form.
func sortValues(vs []reflect.Value) {
	slices.SortFunc(vs, func(a, b reflect.Value) int {
		return strings.Compare(fmt.Sprint(a.Interface()), fmt.Sprint(b.Interface()))
	})
}

// excerptIndex indexes the windows of a few strings and finds, in a long
// text, every window they share with it.
type excerptIndex struct {
	strs  []string
	slots []int32 // entry index + 1 by window hash (open addressing; 0: empty)
	ents  []excerptEntry
}

// excerptEntry is a window of string str starting at off; next chains the
// entries of one hash.
type excerptEntry struct {
	hash      uint64
	str, off  int32
	next, pos int32
}

func (x *excerptIndex) reset() {
	x.strs = x.strs[:0]
	x.ents = x.ents[:0]
	clear(x.slots)
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
	roll := newRoller()
	for i := range len(val) {
		h, full := roll.push(val[i])
		if full {
			x.insert(excerptEntry{hash: h, str: id, off: int32(i + 1 - excerptWindow)})
		}
	}
}

func (x *excerptIndex) insert(e excerptEntry) {
	if 2*(len(x.ents)+1) > len(x.slots) {
		x.grow()
	}
	x.ents = append(x.ents, e)
	x.place(int32(len(x.ents) - 1))
}

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
		x.place(int32(i))
	}
}

// scan calls found with the string of every window of text that occurs in
// an indexed string.
func (x *excerptIndex) scan(text []byte, found func(str int32)) {
	if len(text) < excerptWindow || len(x.slots) == 0 {
		return
	}
	mask := uint64(len(x.slots) - 1)
	roll := newRoller()
	for i := range len(text) {
		h, full := roll.push(text[i])
		if !full {
			continue
		}
		w := text[i+1-excerptWindow : i+1]
		for at := h & mask; x.slots[at] != 0; at = (at + 1) & mask {
			e := &x.ents[x.slots[at]-1]
			if e.hash == h && x.strs[e.str][e.off:int(e.off)+excerptWindow] == string(w) {
				found(e.str)
			}
		}
	}
}

// roller is a rolling hash of the last excerptWindow bytes.
type roller struct {
	h     uint64
	n     int
	buf   [excerptWindow]byte
	power uint64 // rollBase^(excerptWindow-1)
}

const rollBase = 0x100000001b3

func newRoller() roller {
	p := uint64(1)
	for range excerptWindow - 1 {
		p *= rollBase
	}
	return roller{power: p}
}

// push adds c and returns the hash of the last window, once it is full.
func (r *roller) push(c byte) (uint64, bool) {
	slot := r.n % excerptWindow
	if r.n >= excerptWindow {
		r.h -= uint64(r.buf[slot]) * r.power
	}
	r.h = r.h*rollBase + uint64(c)
	r.buf[slot] = c
	r.n++
	return r.h * 0x9e3779b97f4a7c15, r.n >= excerptWindow
}
