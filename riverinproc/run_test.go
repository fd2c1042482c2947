package riverinproc

import (
	"os"
	"testing"

	"github.com/durasim/durasim/internal/bubble"
	"github.com/durasim/durasim/targetsim"
)

func TestSmoke(t *testing.T) {
	c := DefaultConfig()
	for _, d := range []targetsim.Design{targetsim.TxChecked, targetsim.EffectOutsideTx} {
		c.Design = d
		rep, err := RunSeed(bubble.New(t), c, 1)
		if err != nil {
			t.Fatal(err)
		}
		rep.Print(os.Stdout)
	}
}
