package chaos

import (
	"context"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sqlstore"
)

// StoreBroker is the broker of a store, as the consumer reads it.
func StoreBroker(s *sqlstore.Store) Broker { return s }

// extra is what the final checks read beside sqlstore.State.
type extra struct {
	Broker  []Message
	Results map[string]model.EventID // StageKey(key, stage) → event
}

func readExtra(ctx context.Context, s *sqlstore.Store) (extra, error) {
	msgs, err := s.Broker(ctx)
	if err != nil {
		return extra{}, err
	}
	res, err := s.Results(ctx)
	return extra{Broker: msgs, Results: res}, err
}
