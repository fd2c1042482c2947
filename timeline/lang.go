package timeline

import (
	"fmt"
	"maps"
)

// Lang is the language of a timeline's controls and captions: "en" or
// "pt-BR" (the trace lines themselves are the same in both).
type Lang string

// The languages.
const (
	En   Lang = "en"
	PtBR Lang = "pt-BR"
)

// ParseLang accepts "en" and "pt-BR".
func ParseLang(s string) (Lang, error) {
	switch Lang(s) {
	case En, PtBR:
		return Lang(s), nil
	}
	return "", fmt.Errorf("unknown language %q: want en or pt-BR", s)
}

// t picks the Portuguese or the English text.
func (l Lang) t(pt, en string) string {
	if l == PtBR {
		return pt
	}
	return en
}

// ui is the text the script writes itself (counts, hints, the legend).
func (l Lang) ui() map[string]string {
	return map[string]string{
		"shown":     l.t("%s de %s eventos", "%s of %s events"),
		"hint":      l.t("Clique numa marca para ver seu evento; ←/→ vão ao evento anterior/seguinte do mesmo job; +/− aproximam, 0 mostra tudo.", "Click a mark to see its event; ←/→ go to the previous/next event of the same job; +/− zoom, 0 shows everything."),
		"job":       l.t("job", "job"),
		"noJob":     l.t("(sem job: ←/→ seguem a raia)", "(no job: ←/→ follow the lane)"),
		"idle":      l.t("ocioso", "idle"),
		"linksOff":  l.t("aproxime para ver as ligações commit → publish → apply", "zoom in to see the commit → publish → apply links"),
		"dot":       l.t("outro evento", "other event"),
		"lease":     l.t("lease (barra até ack/expiração)", "lease (bar until ack/expiry)"),
		"commit":    "commit",
		"publish":   "publish",
		"deliver":   l.t("entrega", "delivery"),
		"apply":     "apply",
		"skip":      l.t("duplicata ignorada", "duplicate skipped"),
		"ack":       "ack",
		"retry":     "retry",
		"dead":      l.t("DLQ/dead", "DLQ/dead"),
		"reject":    l.t("recusado", "refused"),
		"crash":     l.t("queda", "crash"),
		"pause":     l.t("pausa (zumbi)", "pause (zombie)"),
		"duplicate": l.t("broker duplica", "broker duplicate"),
		"delay":     l.t("broker atrasa", "broker delay"),
		"reorder":   l.t("broker reordena", "broker reorder"),
		"ambiguous": l.t("commit ambíguo", "ambiguous commit"),
		"deadline":  "deadline",
		"429":       l.t("rajada 429", "429 burst"),
		"named":     l.t("citado pela violação", "named by the violation"),
	}
}

// targetUI is what a target run's marks mean where it differs from the
// model's (the same shapes, another system's calls), and what the
// target's own marks say.
func (l Lang) targetUI() map[string]string {
	return map[string]string{
		"lease":    l.t("fetch (barra até o report ou a queda)", "fetch (bar until the report or the crash)"),
		"apply":    l.t("efeito gravado", "effect written"),
		"skip":     l.t("efeito ou insert deduplicado", "effect or insert deduplicated"),
		"commit":   l.t("commit da transação", "transaction commit"),
		"ack":      l.t("concluído", "completed"),
		"retry":    l.t("retryable (volta mais tarde)", "retryable (runs again later)"),
		"dead":     l.t("descartado", "discarded"),
		"cancel":   l.t("cancelado", "cancelled"),
		"reject":   l.t("recusado ou rollback", "refused or rolled back"),
		"fail":     l.t("erro do handler", "handler error"),
		"delay":    l.t("snooze (agendado)", "snooze (scheduled)"),
		"expired":  l.t("lido como preso pelo rescuer", "read as stuck by the rescuer"),
		"deadline": l.t("timeout do job (contexto cancelado)", "job timeout (context cancelled)"),
		"operator": l.t("resgate ou retry do operador", "rescue or operator retry"),
		"fault":    l.t("falha do plano", "fault of the plan"),
		"linksOff": l.t("aproxime para ver as ligações de cada transação", "zoom in to see each transaction's links"),
	}
}

// uiFor is the script's text for data d: a target run's marks say what
// they mean there.
func (l Lang) uiFor(d *data) map[string]string {
	ui := l.ui()
	if d.Clock == traceWhole {
		maps.Copy(ui, l.targetUI())
	}
	return ui
}
