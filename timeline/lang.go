package timeline

import "fmt"

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
