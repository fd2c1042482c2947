package invariants

import (
	"pgregory.net/rapid"
	"reflect"
	"strings"
	"testing"

	"github.com/durasim/durasim/model"
)

// A document carrying a canary, as the simulator's documents do.
const canaryDoc = "Fatura 54321 de acme, CPF 321.654.987-00, contato cliente2@example.com, ref CANARY-00c0ffee"

func TestExcerpts(t *testing.T) {
	cfg := Config{Model: testCfg.Model, Secrets: []string{canaryDoc, "unexpected token near '" + canaryDoc[:40] + "'"}}
	env := model.Envelope{Job: 1, CorrelationID: key(1), Tenant: "acme", Reason: model.CodePoisonSchema, Attempts: 1}
	dlq := func(change func(e *model.Envelope)) Final {
		e := env
		change(&e)
		return Final{DLQ: []model.Envelope{e}}
	}
	deadPoison := one(enqueue(1), lease(1, 1, 1), failed(1, 1, model.CodePoisonSchema), dlqWrite(1, model.CodePoisonSchema),
		dead(1, 1, model.CodePoisonSchema))
	text := func(s string) model.Event { return model.Event{Kind: model.EvFault, Actor: w0, Job: 1, Text: s} }
	runTable(t, DLQHygiene, []fixture{
		{name: "an envelope of codes and hashes", cfg: &cfg, history: deadPoison, final: dlq(func(*model.Envelope) {})},
		{name: "a 40-byte excerpt of a document in a schema path", cfg: &cfg, history: deadPoison,
			final: dlq(func(e *model.Envelope) { e.SchemaPaths = []string{"$.total near " + canaryDoc[:26]} }),
			want:  []want{{1, []uint64{4}, "DLQ entry of j1: SchemaPaths[0] holds an excerpt of 12 bytes or more of document text or raw error (secret 1)"}}},
		{name: "an 11-byte fragment is not an excerpt", cfg: &cfg, history: deadPoison,
			final: dlq(func(e *model.Envelope) { e.SchemaPaths = []string{"$." + canaryDoc[7:18]} })},
		{name: "an excerpt of the raw error in an event text", cfg: &cfg,
			history: one(text("parser said: " + cfg.Secrets[1][5:30])),
			want:    []want{{1, []uint64{1}, "fault event text holds an excerpt of 12 bytes or more of document text or raw error (secret 2)"}}},
		{name: "a canary in an audit entry", cfg: &cfg,
			final: Final{Audit: []model.AuditEntry{{Action: "redrive", OldJob: 1, NewJob: 1, Operator: "op CANARY-00c0ffee", Tenant: "acme"}}},
			want:  []want{{1, nil, "audit entry of j1: Operator holds a document's canary token"}}},
		{name: "an excerpt in a key", cfg: &cfg, history: one(enqueueAs(1, "acme", "acme:"+canaryDoc[3:20]+":v1")),
			want: []want{{1, []uint64{1}, "key holds an excerpt of 12 bytes or more"}}},
		{name: "an excerpt in the key of a commit that is not its job's", cfg: &cfg,
			history: one(enqueue(1), lease(1, 1, 1), with(commit(1, model.StageIngest, 1), func(e *model.Event) { e.Key = canaryDoc[:14] })),
			want:    []want{{1, []uint64{3}, "commit event key holds an excerpt of 12 bytes or more"}}},
	})
}

// Every string field of model.Event is seen by the hygiene check: an event
// with a secret in any of them is flagged, so a field added later cannot
// carry a document out unseen.
func TestEveryEventStringIsChecked(t *testing.T) {
	secret := testCfg.Secrets[0]
	typ := reflect.TypeFor[model.Event]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.Type.Kind() != reflect.String {
			continue
		}
		t.Run(f.Name, func(t *testing.T) {
			e := commit(1, model.StageIngest, 1)
			reflect.ValueOf(&e).Elem().Field(i).SetString("x " + secret[3:30] + " y")
			h := hist(enqueue(1), lease(1, 1, 1), e)
			if got := only(Check(testCfg, h, Final{}, false), DLQHygiene); len(got) == 0 {
				t.Fatalf("an excerpt in Event.%s is not flagged", f.Name)
			}
		})
	}
}

// Every string reachable from an envelope or an audit entry is checked,
// whatever field holds it.
func TestEveryEnvelopeStringIsChecked(t *testing.T) {
	secret := "x " + testCfg.Secrets[0][3:30] + " y"
	for _, target := range []any{&model.Envelope{Job: 1, Reason: model.CodePoisonSchema}, &model.AuditEntry{Action: "redrive", OldJob: 1, NewJob: 1}} {
		v := reflect.ValueOf(target).Elem()
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if f.Name == "RawError" {
				continue // flagged whenever it is set, whatever it holds
			}
			fv := v.Field(i)
			old := reflect.New(fv.Type()).Elem()
			old.Set(fv)
			switch {
			case fv.Kind() == reflect.String:
				fv.SetString(secret)
			case fv.Kind() == reflect.Slice && fv.Type().Elem().Kind() == reflect.String:
				fv.Set(reflect.ValueOf([]string{secret}))
			default:
				continue
			}
			var final Final
			switch x := target.(type) {
			case *model.Envelope:
				final.DLQ = []model.Envelope{*x}
			case *model.AuditEntry:
				final.Audit = []model.AuditEntry{*x}
			}
			got := only(Check(testCfg, nil, final, false), DLQHygiene)
			if len(got) == 0 || !strings.Contains(got[0].Message, f.Name) {
				t.Errorf("%T.%s holding an excerpt: %v", target, f.Name, got)
			}
			fv.Set(old)
		}
	}
}

// The excerpt index finds, for any string, exactly the first secret it
// shares a window of excerptWindow bytes with, wherever the window lies in
// either.
func TestExcerptIndexAgainstBruteForce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		// Two letters make windows (and runs) recur within and across the
		// secrets (chained behind one head), eight make most distinct.
		letters := rapid.SampledFrom([]string{"abcdefgh", "ab"}).Draw(t, "letters")
		gen := rapid.StringOfN(rapid.RuneFrom([]rune(letters)), 0, 40, -1)
		secrets := rapid.SliceOfN(gen, 1, 4).Draw(t, "secrets")
		strs := rapid.SliceOfN(gen, 1, 6).Draw(t, "strs")
		for i := range strs { // some hold a piece of a secret, of any length, anywhere
			text := secrets[rapid.IntRange(0, len(secrets)-1).Draw(t, "secret")]
			if len(text) > 0 && rapid.Bool().Draw(t, "piece") {
				k := rapid.IntRange(0, len(text)-1).Draw(t, "from")
				m := min(len(text), k+rapid.IntRange(excerptWindow-1, excerptWindow+2).Draw(t, "length"))
				strs[i] = gen.Draw(t, "before") + text[k:m] + gen.Draw(t, "after")
			}
			if rapid.Bool().Draw(t, "canary") { // a canary, whole or cut, anywhere
				c := CanaryPrefix[:rapid.IntRange(len(CanaryPrefix)-1, len(CanaryPrefix)).Draw(t, "canary length")]
				k := rapid.IntRange(0, len(strs[i])).Draw(t, "canary at")
				strs[i] = strs[i][:k] + c + strs[i][k:]
			}
		}
		var x excerptIndex
		x.reset(secretList(secrets))
		for i, s := range strs {
			want := int32(-1)
			for k := len(secrets) - 1; k >= 0; k-- {
				for w := 0; w+excerptWindow <= len(s); w++ {
					if strings.Contains(secrets[k], s[w:w+excerptWindow]) {
						want = int32(k)
					}
				}
			}
			got, canary := x.find(s)
			if got != want {
				t.Fatalf("string %d %q in secrets %q: found secret %d, want %d", i, s, secrets, got, want)
			}
			if canary != strings.Contains(s, CanaryPrefix) {
				t.Fatalf("string %d %q: canary %v", i, s, canary)
			}
		}
		wantShort := false
		for _, s := range secrets {
			wantShort = wantShort || len(s) > 0 && len(s) < excerptWindow
		}
		if x.short != wantShort {
			t.Fatalf("secrets %q: short is %v", secrets, x.short)
		}
	})
}
