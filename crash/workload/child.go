package workload

import (
	"context"
	"time"

	"github.com/durasim/durasim/crash"
)

// Begin starts child c's life on lib (package crash's Begin): SIGTERM
// and SIGINT cancel the context it returns; its history opens with the
// start line (its kill point, its time zone); its Killer is armed with
// its point. end writes the armed line of a point not fired and closes
// the history; call it when the child returns. who names the command in
// a write error's message.
func (c Child) Begin(ctx context.Context, who string) (_ context.Context, _ *History, _ *Killer, end func(), err error) {
	zone, _ := time.Now().Zone()
	start := Entry{Op: OpStart, Point: c.Kill.At.String(), Nth: c.Kill.Nth, Zone: zone, T0: Stamp()}
	ctx, hist, stop, err := crash.Begin(ctx, c.History, c.Name(), who, start)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	kill := &Killer{Assignment: c.Kill, Hist: hist}
	return ctx, hist, kill, func() { kill.Disarm(); stop() }, nil
}
