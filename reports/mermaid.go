package reports

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/scenarios"
)

// The counterexample as a Mermaid sequence diagram: every event of the
// critical path is an arrow between the actor and the component it acts
// on, or a note over the actor.

// participantOrder fixes the left-to-right order of the diagram's lanes;
// workers (w0, w1, ...) go where "w" stands.
// (the last lanes are those of the workflow experiment; rescuer,
// scheduler, river and effects are the River report's).
var participantOrder = []string{"client", "api", "rescuer", "scheduler", "queue", "river", "effects", "w", "worker", "workflow", "llm", "activity", "db", "outbox",
	"relay", "broker", "consumer", "dlq", "op", "history"}

// arrow is one line of the diagram before rendering.
type arrow struct {
	from, to, text string
	seq            uint64 // the event's number (0: a custom arm's message)
}

// lane is the diagram lane of an actor (workers by id, incarnations
// folded into one lane).
func lane(a model.Actor) string {
	switch a.Role {
	case model.RoleWorker:
		return "w" + strconv.Itoa(int(a.ID))
	case model.RoleClient:
		return "client"
	case model.RoleAPI:
		return "api"
	case model.RoleRelay:
		return "relay"
	case model.RoleBroker:
		return "broker"
	case model.RoleConsumer:
		return "consumer"
	case model.RoleOperator:
		return "op"
	}
	return "queue"
}

// eventArrow maps an event to its arrow.
func eventArrow(e *model.Event) arrow {
	from := lane(e.Actor)
	text := strconv.FormatUint(e.Seq, 10) + " " + eventText(e)
	switch e.Kind {
	case model.EvAccept, model.EvStatus:
		return arrow{from: from, to: "api", text: text, seq: e.Seq}
	case model.EvEnqueue, model.EvLease, model.EvHeartbeat, model.EvAdvance, model.EvAck, model.EvRetry,
		model.EvDead, model.EvCancel, model.EvCancelAtLease, model.EvExhausted, model.EvLeaseExpired:
		return arrow{from: from, to: "queue", text: text, seq: e.Seq}
	case model.EvCommit:
		return arrow{from: from, to: "outbox", text: text, seq: e.Seq}
	case model.EvDBWrite:
		return arrow{from: from, to: "db", text: text, seq: e.Seq}
	case model.EvPublish:
		return arrow{from: from, to: "broker", text: text, seq: e.Seq}
	case model.EvMarkPublished, model.EvPrune:
		return arrow{from: from, to: "outbox", text: text, seq: e.Seq}
	case model.EvDeliver, model.EvApply:
		return arrow{from: "broker", to: "consumer", text: text, seq: e.Seq}
	case model.EvDLQWrite, model.EvRedrive, model.EvReprocess:
		return arrow{from: from, to: "dlq", text: text, seq: e.Seq}
	case model.EvExtract:
		if e.Stage == model.StageExtract {
			return arrow{from: from, to: "llm", text: text, seq: e.Seq}
		}
	case model.EvWorkFail:
		if e.Code == model.CodeProviderRateLimited {
			return arrow{from: "llm", to: from, text: text, seq: e.Seq}
		}
	}
	return arrow{from: from, to: from, text: text, seq: e.Seq}
}

// eventText is the event's trace text without actor, tenant and key (the
// lanes and the report's tables already say them).
func eventText(e *model.Event) string {
	c := *e
	c.Actor, c.Tenant, c.Key = model.Actor{}, "", ""
	text := c.String()
	if e.Actor.Incarnation > 0 || e.Actor.Role == model.RoleWorker && e.Kind == model.EvRestart {
		text = e.Actor.String() + " " + text
	}
	return text
}

// maxLanes caps a diagram's participants: past it, the workers after the
// first few share one lane, and each of their arrows names its worker.
const maxLanes = 12

// otherWorkers is the shared lane of the workers past the cap.
const otherWorkers = "wx"

// participant is one lane of a sequence diagram: its id in the arrows and
// the name shown on top.
type participant struct {
	id, name string
}

// lanes lists the diagram's participants in participantOrder (workers by
// number, those past the cap in one shared lane) and the arrows moved to
// that shared lane.
func lanes(arrows []arrow) ([]participant, []arrow) {
	used := map[string]bool{}
	var workers []string // in order of appearance
	for _, a := range arrows {
		for _, p := range []string{a.from, a.to} {
			if !used[p] && isWorkerLane(p) {
				workers = append(workers, p)
			}
			used[p] = true
		}
	}
	kept, grouped := capWorkers(workers, len(used)-len(workers))
	arrows = regroup(arrows, grouped)
	slices.SortFunc(kept, func(a, b string) int {
		x, _ := strconv.Atoi(a[1:])
		y, _ := strconv.Atoi(b[1:])
		return x - y
	})
	var out []participant
	for _, p := range participantOrder {
		switch {
		case p == "w":
			for _, n := range kept {
				out = append(out, participant{n, n})
			}
			if len(grouped) > 0 {
				out = append(out, participant{otherWorkers, fmt.Sprintf("%d other workers", len(grouped))})
			}
		case used[p]:
			out = append(out, participant{p, p})
		}
	}
	return out, arrows
}

// mermaid renders arrows as a sequenceDiagram.
func mermaid(arrows []arrow) string {
	parts, arrows := lanes(arrows)
	var b strings.Builder
	b.WriteString("```mermaid\nsequenceDiagram\n")
	for _, p := range parts {
		if p.id == p.name {
			b.WriteString("    participant " + p.id + "\n")
		} else {
			b.WriteString("    participant " + p.id + " as " + p.name + "\n")
		}
	}
	for _, a := range arrows {
		text := mermaidText(a.text)
		if a.from == a.to {
			b.WriteString("    Note over " + a.from + ": " + text + "\n")
			continue
		}
		b.WriteString("    " + a.from + "->>" + a.to + ": " + text + "\n")
	}
	b.WriteString("```\n")
	return b.String()
}

// capWorkers keeps the first workers to appear while the diagram stays
// within maxLanes (others lanes besides) and groups the rest.
func capWorkers(workers []string, others int) (kept []string, grouped map[string]bool) {
	grouped = map[string]bool{}
	if others+len(workers) <= maxLanes {
		return append([]string(nil), workers...), grouped
	}
	room := max(1, maxLanes-others-1)
	for i, w := range workers {
		if i < room {
			kept = append(kept, w)
		} else {
			grouped[w] = true
		}
	}
	return kept, grouped
}

// regroup moves the grouped workers' arrows to the shared lane, naming
// the worker in the text.
func regroup(arrows []arrow, grouped map[string]bool) []arrow {
	if len(grouped) == 0 {
		return arrows
	}
	out := make([]arrow, len(arrows))
	for i, a := range arrows {
		w := ""
		if grouped[a.from] {
			w, a.from = a.from, otherWorkers
		}
		if grouped[a.to] {
			w, a.to = a.to, otherWorkers
		}
		if w != "" {
			a.text = w + ": " + a.text
		}
		out[i] = a
	}
	return out
}

// isWorkerLane reports whether p is a worker's lane ("w" and a number).
func isWorkerLane(p string) bool {
	if len(p) < 2 || p[0] != 'w' {
		return false
	}
	_, err := strconv.Atoi(p[1:])
	return err == nil
}

// mermaidText removes what Mermaid would read as syntax: ";" ends a
// statement and "#" starts an entity code.
func mermaidText(s string) string {
	return strings.NewReplacer(";", ",", "#", "n°", "\n", " ").Replace(s)
}

// customArrows turns a custom arm's messages into arrows.
func customArrows(msgs []scenarios.Message, l Lang) []arrow {
	out := make([]arrow, len(msgs))
	for i, m := range msgs {
		out[i] = arrow{from: m.From, to: m.To, text: l.pick(m.Text)}
	}
	return out
}
