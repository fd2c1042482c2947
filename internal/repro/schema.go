package repro

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Schema is the list of a struct type's leaf settings, each with its key,
// its flag if it has one, and its text form.
type Schema struct {
	typ    reflect.Type
	fields []*Field
	byKey  map[string]*Field
	byFlag map[string]*Field
}

// Field is one leaf setting.
type Field struct {
	Key  string // its path in the struct: "Model.Retry.Base"
	Flag string // the command-line flag that sets it ("": none; a repro file does)
	// Mode, when not empty, says why the field is not reproduced: the
	// command that runs a reproduction sets it (whether to keep a trace).
	Mode   string
	rank   int // the order of its Flag option: Args prints flags in it
	index  []int
	typ    reflect.Type
	format func(reflect.Value) (string, error)
	parse  func(string) (reflect.Value, error) // nil: External
}

// External reports whether the field's text is handed back to the
// caller rather than set (a value only the caller can build, such as an
// open database from its name).
func (f *Field) External() bool { return f.Mode == "" && f.parse == nil }

// Option configures [New].
type Option func(*builder)

type codec struct {
	format func(reflect.Value) (string, error)
	parse  func(string) (reflect.Value, error)
}

type builder struct {
	flags     map[string]string
	ranks     map[string]int
	durations map[string]bool
	modes     map[string]string
	types     map[reflect.Type]codec
	used      map[string]bool
}

// Flag binds the setting at key to the command-line flag -name. A key
// that names a struct makes the whole struct one setting, which needs a
// [Text] form. [Args] prints flags in the order of their Flag options.
func Flag(key, name string) Option {
	return func(b *builder) {
		b.flags[key] = name
		b.ranks[key] = len(b.ranks)
	}
}

// Duration shows the integer settings at keys, nanoseconds, as Go
// durations ("1m2.746s"); every nanosecond is kept.
func Duration(keys ...string) Option {
	return func(b *builder) {
		for _, k := range keys {
			b.durations[k] = true
		}
	}
}

// Mode marks the setting at key as one the command running a
// reproduction sets itself; why says so, for readers of the schema.
func Mode(key, why string) Option { return func(b *builder) { b.modes[key] = why } }

// Text gives every setting of type T a text form. A nil parse makes the
// settings external: a repro file's text for them is handed back to the
// caller of [Schema.ReadFile], which builds the value (format receives
// the zero T for an unset one).
func Text[T any](format func(T) (string, error), parse func(string) (T, error)) Option {
	typ := reflect.TypeFor[T]()
	c := codec{format: func(v reflect.Value) (string, error) {
		var t T
		if v.IsValid() && !(v.Kind() == reflect.Interface && v.IsNil()) {
			t = v.Interface().(T)
		}
		return format(t)
	}}
	if parse != nil {
		c.parse = func(s string) (reflect.Value, error) {
			t, err := parse(s)
			if err != nil {
				return reflect.Value{}, err
			}
			return reflect.ValueOf(&t).Elem(), nil
		}
	}
	return func(b *builder) { b.types[typ] = c }
}

// New builds the schema of the struct type of zero. It fails when a leaf
// has no text form, when an option names a key the struct does not have,
// or when two settings share a flag.
func New(zero any, opts ...Option) (*Schema, error) {
	typ := reflect.TypeOf(zero)
	if typ == nil || typ.Kind() != reflect.Struct {
		return nil, fmt.Errorf("repro: want a struct, got %v", typ)
	}
	b := &builder{flags: map[string]string{}, ranks: map[string]int{}, durations: map[string]bool{}, modes: map[string]string{},
		types: map[reflect.Type]codec{}, used: map[string]bool{}}
	for _, o := range opts {
		o(b)
	}
	s := &Schema{typ: typ, byKey: map[string]*Field{}, byFlag: map[string]*Field{}}
	var errs []error
	b.walk(typ, "", nil, s, &errs)
	for _, keys := range []map[string]bool{keysOf(b.flags), b.durations, keysOf(b.modes)} {
		for _, k := range sortedKeys(keys) {
			if !b.used[k] {
				errs = append(errs, fmt.Errorf("repro: an option names %s, which %v has not as a setting", k, typ))
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return s, nil
}

// MustNew is [New] for a schema declared in a package variable.
func MustNew(zero any, opts ...Option) *Schema {
	s, err := New(zero, opts...)
	if err != nil {
		panic(err)
	}
	return s
}

func (b *builder) walk(typ reflect.Type, prefix string, index []int, s *Schema, errs *[]error) {
	for i := 0; i < typ.NumField(); i++ {
		sf := typ.Field(i)
		if !sf.IsExported() {
			continue
		}
		key := prefix + sf.Name
		idx := append(append([]int(nil), index...), i)
		f := &Field{Key: key, Flag: b.flags[key], rank: b.ranks[key], index: idx, typ: sf.Type}
		b.used[key] = b.flags[key] != "" || b.durations[key] || b.modes[key] != ""
		switch c, ok := b.types[sf.Type]; {
		case b.modes[key] != "":
			f.Mode = b.modes[key]
		case ok:
			f.format, f.parse = c.format, c.parse
		case b.durations[key]:
			if !sf.Type.ConvertibleTo(reflect.TypeFor[int64]()) || !isInt(sf.Type.Kind()) {
				*errs = append(*errs, fmt.Errorf("repro: %s is a %v, not an integer of nanoseconds", key, sf.Type))
				continue
			}
			f.format, f.parse = durationCodec(sf.Type)
		case sf.Type.Kind() == reflect.Struct && f.Flag == "":
			b.walk(sf.Type, key+".", idx, s, errs)
			continue
		default:
			var err error
			if f.format, f.parse, err = nativeCodec(sf.Type); err != nil {
				*errs = append(*errs, fmt.Errorf("repro: %s (%v) has no text form: give its type one (repro.Text), or mark it repro.Mode", key, sf.Type))
				continue
			}
		}
		if f.Flag != "" {
			if other, dup := s.byFlag[f.Flag]; dup {
				*errs = append(*errs, fmt.Errorf("repro: %s and %s share the flag -%s", other.Key, key, f.Flag))
				continue
			}
			s.byFlag[f.Flag] = f
		}
		s.fields = append(s.fields, f)
		s.byKey[key] = f
	}
}

// Fields lists the leaf settings in field order.
func (s *Schema) Fields() []*Field { return s.fields }

// Field returns the setting at key (nil: none).
func (s *Schema) Field(key string) *Field { return s.byKey[key] }

// FlagField returns the setting flag -name sets (nil: none).
func (s *Schema) FlagField(name string) *Field { return s.byFlag[name] }

// Setting is one setting of a value, as text.
type Setting struct {
	Field *Field
	Text  string
	Err   error // the value has no text form (a value only code can build)
}

// Diff lists the settings (not the Mode ones) in which v differs from
// base, in field order; both are values of the schema's type. Settings
// whose texts are equal are equal: a nil and an empty list are alike.
func (s *Schema) Diff(v, base any) []Setting {
	rv, rb := s.value(v), s.value(base)
	var out []Setting
	for _, f := range s.fields {
		if f.Mode != "" {
			continue
		}
		a, errA := f.format(rv.FieldByIndex(f.index))
		b, errB := f.format(rb.FieldByIndex(f.index))
		switch {
		case errA != nil:
			out = append(out, Setting{Field: f, Err: errA})
		case errB != nil || a != b:
			out = append(out, Setting{Field: f, Text: a})
		}
	}
	return out
}

// Args renders settings as command-line arguments (a boolean as -name or
// -name=false) and lists those no flag can give: without a flag, or
// without a text form.
func Args(settings []Setting) (args []string, missing []Setting) {
	var flagged []Setting
	for _, st := range settings {
		if st.Err != nil || st.Field.Flag == "" {
			missing = append(missing, st)
		} else {
			flagged = append(flagged, st)
		}
	}
	slices.SortStableFunc(flagged, func(a, b Setting) int { return a.Field.rank - b.Field.rank })
	for _, st := range flagged {
		switch {
		case st.Field.typ.Kind() == reflect.Bool && st.Text == "true":
			args = append(args, "-"+st.Field.Flag)
		case st.Field.typ.Kind() == reflect.Bool:
			args = append(args, "-"+st.Field.Flag+"="+st.Text)
		default:
			args = append(args, "-"+st.Field.Flag, st.Text)
		}
	}
	return args, missing
}

// Keys names the settings, for a message ("MaxFaults, DrainLimit").
func Keys(settings []Setting) string {
	keys := make([]string, len(settings))
	for i, st := range settings {
		keys[i] = st.Field.Key
	}
	return strings.Join(keys, ", ")
}

// Get is the text of the setting at key in v.
func (s *Schema) Get(v any, key string) (string, error) {
	f := s.byKey[key]
	if f == nil || f.Mode != "" {
		return "", fmt.Errorf("no setting %s", key)
	}
	return f.format(s.value(v).FieldByIndex(f.index))
}

// Set sets the setting at key in *ptr from its text.
func (s *Schema) Set(ptr any, key, text string) error {
	f := s.byKey[key]
	switch {
	case f == nil:
		return fmt.Errorf("unknown setting %s", key)
	case f.Mode != "":
		return fmt.Errorf("%s is not a setting a reproduction sets (%s)", key, f.Mode)
	case f.parse == nil:
		return fmt.Errorf("%s is set by its caller, not from text", key)
	}
	return s.set(ptr, f, text)
}

// SetFlag sets the setting flag -name binds in *ptr from its text.
func (s *Schema) SetFlag(ptr any, name, text string) error {
	f := s.byFlag[name]
	if f == nil {
		return fmt.Errorf("no setting has the flag -%s", name)
	}
	return s.Set(ptr, f.Key, text)
}

func (s *Schema) set(ptr any, f *Field, text string) error {
	rv := reflect.ValueOf(ptr)
	if rv.Kind() != reflect.Pointer || rv.Elem().Type() != s.typ {
		return fmt.Errorf("repro: want a *%v, got %T", s.typ, ptr)
	}
	val, err := f.parse(text)
	if err != nil {
		return err
	}
	rv.Elem().FieldByIndex(f.index).Set(val.Convert(f.typ))
	return nil
}

func (s *Schema) value(v any) reflect.Value {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		rv = rv.Elem()
	}
	if rv.Type() != s.typ {
		panic(fmt.Sprintf("repro: schema of %v given a %v", s.typ, rv.Type()))
	}
	return rv
}

func isInt(k reflect.Kind) bool { return k >= reflect.Int && k <= reflect.Int64 }

func isUint(k reflect.Kind) bool { return k >= reflect.Uint && k <= reflect.Uint64 }

// nativeCodec is the text form of a bool, an integer, a string or a list
// of integers ("1,2,3"; empty for none).
func nativeCodec(t reflect.Type) (func(reflect.Value) (string, error), func(string) (reflect.Value, error), error) {
	k := t.Kind()
	switch {
	case k == reflect.Bool:
		return func(v reflect.Value) (string, error) { return strconv.FormatBool(v.Bool()), nil },
			func(s string) (reflect.Value, error) {
				b, err := strconv.ParseBool(s)
				if err != nil {
					return reflect.Value{}, errors.New("want true or false")
				}
				return reflect.ValueOf(b), nil
			}, nil
	case isInt(k) || isUint(k):
		return scalarInt(t)
	case k == reflect.String:
		return func(v reflect.Value) (string, error) { return v.String(), nil },
			func(s string) (reflect.Value, error) { return reflect.ValueOf(s), nil }, nil
	case k == reflect.Slice && (isInt(t.Elem().Kind()) || isUint(t.Elem().Kind())):
		format, parse, _ := scalarInt(t.Elem())
		return func(v reflect.Value) (string, error) {
				parts := make([]string, v.Len())
				for i := range parts {
					parts[i], _ = format(v.Index(i))
				}
				return strings.Join(parts, ","), nil
			}, func(s string) (reflect.Value, error) {
				out := reflect.MakeSlice(t, 0, 0)
				if strings.TrimSpace(s) == "" {
					return reflect.Zero(t), nil
				}
				for _, part := range strings.Split(s, ",") {
					e, err := parse(strings.TrimSpace(part))
					if err != nil {
						return reflect.Value{}, fmt.Errorf("%q: %v (a list is comma-separated)", part, err)
					}
					out = reflect.Append(out, e.Convert(t.Elem()))
				}
				return out, nil
			}, nil
	}
	return nil, nil, errors.New("no text form")
}

func scalarInt(t reflect.Type) (func(reflect.Value) (string, error), func(string) (reflect.Value, error), error) {
	bits := t.Bits()
	if isUint(t.Kind()) {
		return func(v reflect.Value) (string, error) { return strconv.FormatUint(v.Uint(), 10), nil },
			func(s string) (reflect.Value, error) {
				n, err := strconv.ParseUint(s, 10, bits)
				if err != nil {
					return reflect.Value{}, fmt.Errorf("want an unsigned integer below 2^%d", bits)
				}
				return reflect.ValueOf(n).Convert(t), nil
			}, nil
	}
	return func(v reflect.Value) (string, error) { return strconv.FormatInt(v.Int(), 10), nil },
		func(s string) (reflect.Value, error) {
			n, err := strconv.ParseInt(s, 10, bits)
			if err != nil {
				return reflect.Value{}, fmt.Errorf("want an integer from %d to %d", int64(-1)<<(bits-1), int64(1)<<(bits-1)-1)
			}
			return reflect.ValueOf(n).Convert(t), nil
		}, nil
}

func durationCodec(t reflect.Type) (func(reflect.Value) (string, error), func(string) (reflect.Value, error)) {
	return func(v reflect.Value) (string, error) { return time.Duration(v.Int()).String(), nil },
		func(s string) (reflect.Value, error) {
			d, err := time.ParseDuration(s)
			if err != nil {
				return reflect.Value{}, errors.New("want a Go duration such as 30s, 1500ms or 2m30s")
			}
			return reflect.ValueOf(int64(d)).Convert(t), nil
		}
}

func keysOf[V any](m map[string]V) map[string]bool {
	out := make(map[string]bool, len(m))
	//det:sorted (a set: order does not matter)
	for k := range m {
		out[k] = true
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	//det:sorted
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Change sets v, a leaf setting, to another value of its kind — a boolean
// flipped, a number plus one, a string with an x more, a list of integers
// [1 3] — for tests that change each setting alone; false for a kind it
// does not know.
func Change(v reflect.Value) bool {
	switch k := v.Kind(); {
	case k == reflect.Bool:
		v.SetBool(!v.Bool())
	case isInt(k):
		v.SetInt(v.Int() + 1)
	case isUint(k):
		v.SetUint(v.Uint() + 1)
	case k == reflect.String:
		v.SetString(v.String() + "x")
	case k == reflect.Slice && (isInt(v.Type().Elem().Kind()) || isUint(v.Type().Elem().Kind())):
		s := reflect.MakeSlice(v.Type(), 2, 2)
		s.Index(0).Set(reflect.ValueOf(1).Convert(v.Type().Elem()))
		s.Index(1).Set(reflect.ValueOf(3).Convert(v.Type().Elem()))
		v.Set(s)
	default:
		return false
	}
	return true
}

// FlagNames lists the flags of the schema's settings, in field order.
func (s *Schema) FlagNames() []string {
	var names []string
	for _, f := range s.fields {
		if f.Flag != "" {
			names = append(names, f.Flag)
		}
	}
	return names
}

// Settings lists a copy of every setting by key, with its flag ("" for
// one only a repro file sets) and, for a Mode one, why it is not
// reproduced.
func (s *Schema) Settings() []Field {
	out := make([]Field, len(s.fields))
	for i, f := range s.fields {
		out[i] = *f
	}
	return out
}

// Unflagged lists, by key, the settings in which v differs from base
// and that no flag can give.
func (s *Schema) Unflagged(v, base any) []string {
	_, missing := Args(s.Diff(v, base))
	keys := make([]string, len(missing))
	for i, st := range missing {
		keys[i] = st.Field.Key
	}
	return keys
}

// Leaves lists every exported field of the struct type typ by its dotted
// path, walking nested structs but those of the types in whole (read as
// one setting) — by reflection over the type, not a schema, so that a
// test finds a field a schema forgot.
func Leaves(typ reflect.Type, whole ...reflect.Type) []string {
	return leaves(typ, "", whole)
}

func leaves(typ reflect.Type, prefix string, whole []reflect.Type) []string {
	var out []string
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		if !f.IsExported() {
			continue
		}
		if f.Type.Kind() == reflect.Struct && !slices.Contains(whole, f.Type) {
			out = append(out, leaves(f.Type, prefix+f.Name+".", whole)...)
			continue
		}
		out = append(out, prefix+f.Name)
	}
	return out
}

// Pairs reads back what Args renders: each flag's name and text (a
// boolean alone as "true"), in order.
func Pairs(args []string) [][2]string {
	var out [][2]string
	for i := 0; i < len(args); i++ {
		name, val, hasVal := strings.Cut(strings.TrimPrefix(args[i], "-"), "=")
		switch {
		case hasVal:
		case i+1 < len(args) && !strings.HasPrefix(args[i+1], "-"):
			i++
			val = args[i]
		default:
			val = "true" // a boolean flag alone
		}
		out = append(out, [2]string{name, val})
	}
	return out
}
