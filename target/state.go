package target

// State is a job's state, in River's words (ARCHITECTURE.md maps them to the
// model's: available is pending, running is leased, retryable is
// retry_wait; discarded is dead).
type State uint8

// The states.
const (
	StateNone State = iota
	Available
	Scheduled
	Running
	Retryable
	Pending
	Completed
	Discarded
	Cancelled
	stateCount
)

var stateNames = [stateCount]string{"none", "available", "scheduled", "running", "retryable", "pending", "completed",
	"discarded", "cancelled"}

func (s State) String() string {
	if s >= stateCount {
		return "state?"
	}
	return stateNames[s]
}

// Final reports whether a job in s is finished: completed, discarded or
// cancelled. Only an operator brings a job back from there.
func (s State) Final() bool { return s == Completed || s == Discarded || s == Cancelled }

// ParseState reads a state's String back; ok is false for anything else.
func ParseState(s string) (State, bool) {
	for i, n := range stateNames {
		if i > 0 && n == s {
			return State(i), true
		}
	}
	return StateNone, false
}

// States lists every state but StateNone.
func States() []State {
	out := make([]State, 0, stateCount-1)
	for s := Available; s < stateCount; s++ {
		out = append(out, s)
	}
	return out
}
