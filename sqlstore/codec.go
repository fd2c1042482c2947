package sqlstore

import (
	"fmt"
	"strings"

	"github.com/durasim/durasim/model"
)

// States and codes are stored by name, not number, so that a person
// reading the tables with psql or sqlite3 sees "retry_wait" and
// "max_attempts_exceeded", and a renumbering in the model cannot silently
// change stored meaning.

var (
	stateByName = map[string]model.State{}
	codeByName  = map[string]model.Code{}
)

func init() {
	for s := model.State(0); !strings.HasPrefix(s.String(), "state("); s++ {
		stateByName[s.String()] = s
	}
	for c := model.Code(0); !strings.HasPrefix(c.String(), "code("); c++ {
		codeByName[c.String()] = c
	}
}

func parseState(s string) (model.State, error) {
	if st, ok := stateByName[s]; ok {
		return st, nil
	}
	return 0, fmt.Errorf("unknown job state %q in the database", s)
}

func parseCode(s string) (model.Code, error) {
	if c, ok := codeByName[s]; ok {
		return c, nil
	}
	return 0, fmt.Errorf("unknown code %q in the database", s)
}

// The state names used in SQL text.
var (
	sPending   = model.Pending.String()
	sLeased    = model.Leased.String()
	sRetryWait = model.RetryWait.String()
	sSucceeded = model.Succeeded.String()
	sDead      = model.Dead.String()
	sCancelled = model.Cancelled.String()
)
