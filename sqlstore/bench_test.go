package sqlstore

import (
	"fmt"
	"testing"

	"github.com/durasim/durasim/model"
)

// BenchmarkJobLoop runs one job through the store per iteration, one
// actor: enqueue, lease, commit, ack, publish, mark, apply (7
// transactions). ops/s counts transactions.
func BenchmarkJobLoop(b *testing.B) {
	for _, be := range backends() {
		b.Run(be.name, func(b *testing.B) {
			d, u := be.url(b)
			s := mustOpen(b, d, u)
			c := conn(b, s)
			b.ResetTimer()
			for i := range b.N {
				now := model.Time(i)
				id := enqueue(b, c, job(fmt.Sprint("k", i), now))
				l := lease(b, c, "w", now, now+100)
				got, err := c.Commit(ctx, commitReq(id, l.Fence, fmt.Sprint("k", i), model.StageIngest))
				if err != nil {
					b.Fatal(err)
				}
				if err := c.Ack(ctx, id, l.Fence, now); err != nil {
					b.Fatal(err)
				}
				if _, err := c.Publish(ctx, got.EventID, now); err != nil {
					b.Fatal(err)
				}
				if err := c.MarkPublished(ctx, got.EventID, now); err != nil {
					b.Fatal(err)
				}
				if _, err := c.Apply(ctx, got.EventID, now); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(7*b.N)/b.Elapsed().Seconds(), "ops/s")
		})
	}
}
