package riverchaos

import (
	"strconv"

	"github.com/riverqueue/river"

	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/targetsim"
)

// DocArgs is a document job's args: whose document it is. Encoded as
// target/rivertarget encodes them, so both read each other's rows.
type DocArgs struct {
	Tenant  string `json:"tenant"`
	Doc     string `json:"doc"`
	Version int    `json:"version"`
}

// Kind is River's job kind: targetsim's document kind.
func (DocArgs) Kind() string { return targetsim.KindDoc }

func (a DocArgs) target() target.Args {
	return target.Args{Tenant: a.Tenant, Doc: a.Doc, Version: a.Version}
}

// key is the handler's idempotency key, tenant:document:vN.
func (a DocArgs) key() string { return a.Tenant + ":" + a.Doc + ":v" + strconv.Itoa(a.Version) }

// tenants are targetsim's: their documents share names, so a key or an
// effect that loses its tenant collides.
var tenants = []string{"acme", "globex", "initech"}

// docOf is the i-th document of the workload (from 1): tenants in turn,
// names d1, d2, … shared between tenants.
func docOf(i int) DocArgs {
	return DocArgs{Tenant: tenants[(i-1)%len(tenants)], Doc: "d" + strconv.Itoa((i-1)/len(tenants)+1), Version: 1}
}

// insertOpts: one live job per document (River's UniqueOpts{ByArgs},
// default unique states), max attempts as configured.
func insertOpts(maxAttempts int) *river.InsertOpts {
	return &river.InsertOpts{MaxAttempts: maxAttempts, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}
