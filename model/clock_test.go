package model_test

import (
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/scheduler"
)

// Every clock ARCHITECTURE.md names is a model.Clock, and the scheduler's stream
// is a model.Rand.
var (
	_ model.Clock = clock.New()
	_ model.Clock = clock.NewMock()
	_ model.Clock = scheduler.Clock{}
	_ model.Clock = (*fakeClock)(nil)
	_ model.Rand  = scheduler.NewStream(1)
)

func TestSystemReadsTimeThroughItsClock(t *testing.T) {
	fake, mock := &fakeClock{}, clock.NewMock()
	tests := []struct {
		name  string
		clock model.Clock
		set   func(at time.Time)
	}{
		{"fake", fake, func(at time.Time) { fake.now = at }},
		{"benbjohnson mock", mock, mock.Set}, // one Set: it sleeps 1ms of real time per call
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			epoch := tt.clock.Now()
			sys := model.NewSystem(testConfig(), nil, model.Env{Clock: tt.clock, Epoch: epoch, Rand: scheduler.NewStream(1)})
			tt.set(epoch.Add(2500 * time.Millisecond))
			if got := sys.Now(); got != 2500*ms {
				t.Fatalf("Now() = %d, want %d", got, 2500*ms)
			}
			id, err := sys.Enqueue(model.EnqueueRequest{Tenant: "acme", Document: "d", Version: 1})
			if err != nil {
				t.Fatal(err)
			}
			if j, _ := sys.Job(id); j.CreatedAt != 2500*ms || j.VisibleAt != 2500*ms {
				t.Fatalf("job clocks %+v, want createdAt = visibleAt = 2500ms", j)
			}
		})
	}
}

func TestSystemOnTheSchedulerClock(t *testing.T) {
	s := scheduler.New(scheduler.NewStream(1), handlerFunc(func(scheduler.Event) {}))
	sys := model.NewSystem(testConfig(), nil, model.Env{Clock: s.Clock(), Epoch: scheduler.Epoch, Rand: scheduler.NewStream(1)})
	s.RunUntil(7 * scheduler.Second)
	if got := sys.Now(); got != 7000*ms {
		t.Fatalf("Now() = %d, want 7s of virtual time", got)
	}
}

type handlerFunc func(scheduler.Event)

func (f handlerFunc) Handle(ev scheduler.Event) { f(ev) }
