package timeline

import (
	"strconv"
	"strings"
	"testing"

	"github.com/durasim/durasim/invariants"
)

// TestShapesWellFormed: each shape's Portuguese uses every hole of its
// English once, and no other, so no quoted id is lost or invented.
func TestShapesWellFormed(t *testing.T) {
	if len(messageShapes)%2 != 0 || len(fieldNames)%2 != 0 {
		t.Fatal("the tables are not in pairs")
	}
	for _, s := range append(compileShapes(messageShapes), effects) {
		for i := 1; i <= len(s.holes); i++ {
			if n := strings.Count(s.pt, "{"+strconv.Itoa(i)+"}"); n != 1 {
				t.Errorf("%q uses hole {%d} %d times, want once", s.pt, i, n)
			}
		}
		if strings.Contains(s.pt, "{"+strconv.Itoa(len(s.holes)+1)+"}") || strings.Contains(s.pt, "{}") {
			t.Errorf("%q has a hole its English %s lacks", s.pt, s.re)
		}
	}
}

// TestMessages translates messages of several shapes (a field, a list of
// effects, a possessive), leaves English as it is, and says so of a
// message of a shape it does not know.
func TestMessages(t *testing.T) {
	for _, c := range []struct{ en, pt string }{
		{"j1 stage=ingest committed twice under key acme:d1:v1 (e1, then e2): the second commit must deduplicate",
			"j1 stage=ingest teve dois commits sob a chave acme:d1:v1 (e1, depois e2): o segundo commit deveria deduplicar"},
		{"j1 advance with stale fence 1 changed state (current fence 2)", "j1: advance com o fence velho 1 mudou o estado (fence atual 2)"},
		{"j1 lease end is 75453ms in the final state, 60005ms by the history", "j1: fim do lease é 75453ms no estado final, 60005ms pelo histórico"},
		{"DLQ entry of j1: tokens is 0+0=0, the history says 1851", "entrada da DLQ de j1: tokens é 0+0=0, o histórico diz 1851"},
		{"document acme:d1:v1 has 2 effects (j1 attempt 1 by w1; j1 attempt 2 by w1.1)", "o documento acme:d1:v1 tem 2 efeitos (j1 tentativa 1 por w1; j1 tentativa 2 por w1.1)"},
		{"reprocess of j4 beyond tenant acme's limit of 3 per 60000ms", "reprocesso de j4 além do limite do tenant acme, de 3 por 60000ms"},
		{`j1 enqueued under key d1:v1, which is not tenant:document:v1 of a valid tenant "acme"`, `j1 entrou na fila sob a chave d1:v1, que não é tenant:document:v1 de um tenant válido "acme"`},
	} {
		got, ok := PtBR.Message(c.en)
		if !ok || got != c.pt {
			t.Errorf("%q\n\tgives %q (%v)\n\twant  %q", c.en, got, ok, c.pt)
		}
		if got, ok := En.Message(c.en); !ok || got != c.en {
			t.Errorf("in English %q gives %q", c.en, got)
		}
	}
	for _, unknown := range []string{
		"j1 lease frobnicated the queue",                                        // a shape not in the table
		"j1 colour is red in the final state, blue by the history",              // a field it does not name
		"document acme:d1:v1 has 2 effects (j1 attempt 1 by w1; j1 somehow w2)", // an effect it cannot read
	} {
		if got, ok := PtBR.Message(unknown); ok || got != unknown {
			t.Errorf("%q gives %q (%v), want itself and false", unknown, got, ok)
		}
	}
	v := invariants.Violation{Invariant: "fencing", Message: "j1 ack with stale fence 1 changed state (current fence 2)", Events: []uint64{10, 14}}
	if got, ok := PtBR.ViolationText(v); !ok || got != "fencing: j1: ack com o fence velho 1 mudou o estado (fence atual 2) (eventos #10, #14)" {
		t.Errorf("ViolationText gives %q (%v)", got, ok)
	}
	if got, _ := En.ViolationText(v); got != v.String() {
		t.Errorf("in English ViolationText gives %q, want %q", got, v.String())
	}
}
