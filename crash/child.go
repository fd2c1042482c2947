package crash

import (
	"context"
	"os/signal"
	"syscall"
)

// Begin starts a child's life, as every workload's child does: SIGTERM
// and SIGINT cancel the context it returns (the child stops as asked:
// whatever it has in flight ends with its line, then it returns), and
// its history is opened at path (none for "") with start as its first
// line. end closes both; call it when the child returns.
func Begin[E Line[E]](ctx context.Context, path, proc, who string, start E) (_ context.Context, _ *History[E], end func(), err error) {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	var h *History[E]
	if path != "" {
		if h, err = OpenHistory[E](path, proc, who); err != nil {
			stop()
			return nil, nil, nil, err
		}
	}
	h.Write(start)
	return ctx, h, func() { h.Close(); stop() }, nil
}
