package riverchaos

import (
	"github.com/riverqueue/river"

	"github.com/durasim/durasim/crash/workload"
)

// DocArgs is a document job's args, River's JobArgs (its Kind is
// targetsim's document kind): encoded as target/rivertarget encodes
// them, so both read each other's rows.
type DocArgs = workload.DocArgs

var _ river.JobArgs = DocArgs{}

// insertOpts: one live job per document (River's UniqueOpts{ByArgs},
// default unique states), max attempts as configured.
func insertOpts(maxAttempts int) *river.InsertOpts {
	return &river.InsertOpts{MaxAttempts: maxAttempts, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}
