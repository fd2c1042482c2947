package asynqchaos

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/targetsim"
)

// Queue is the asynq queue a run uses; TaskType its tasks' type (the
// target seam's document kind).
const (
	Queue    = "durasim"
	TaskType = targetsim.KindDoc
)

// The handlers' database: the effects (no unique key, so that a
// duplicate shows) and the ledger of keys the keyed designs write in the
// effect's transaction (the shape of riverchaos's tables).
var schema = []string{
	`CREATE TABLE IF NOT EXISTS durasim_effect (id BIGSERIAL PRIMARY KEY, job BIGINT NOT NULL, attempt INTEGER NOT NULL,
		worker TEXT NOT NULL, idem_key TEXT NOT NULL, tenant TEXT NOT NULL, doc TEXT NOT NULL, at BIGINT NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS durasim_ledger (idem_key TEXT PRIMARY KEY)`,
	`TRUNCATE durasim_effect, durasim_ledger RESTART IDENTITY`,
}

const (
	insertEffect = `INSERT INTO durasim_effect (job, attempt, worker, idem_key, tenant, doc, at) VALUES ($1, $2, $3, $4, $5, $6, $7)`
	insertLedger = `INSERT INTO durasim_ledger (idem_key) VALUES ($1) ON CONFLICT (idem_key) DO NOTHING`
)

// DocArgs is a task's payload: whose document it is.
type DocArgs struct {
	Tenant  string `json:"tenant"`
	Doc     string `json:"doc"`
	Version int    `json:"version"`
}

// key is the correct design's idempotency key, tenant:document:vN;
// keyWithoutTenant the naive one's, document:vN.
func (a DocArgs) key() string              { return a.Tenant + ":" + a.keyWithoutTenant() }
func (a DocArgs) keyWithoutTenant() string { return a.Doc + ":v" + strconv.Itoa(a.Version) }

func (a DocArgs) target() target.Args {
	return target.Args{Tenant: a.Tenant, Doc: a.Doc, Version: a.Version}
}

// tenants are targetsim's: their documents share names, so a key that
// loses its tenant collides.
var tenants = []string{"acme", "globex", "initech"}

// docOf is the i-th document of the workload (from 1): tenants in turn,
// names d1, d2, … shared between tenants.
func docOf(i int) DocArgs {
	return DocArgs{Tenant: tenants[(i-1)%len(tenants)], Doc: "d" + strconv.Itoa((i-1)/len(tenants)+1), Version: 1}
}

// TaskID is document i's asynq task ID: the same document always gets
// the same ID, so asynq refuses a second enqueue of it while its task
// exists.
func TaskID(i int) string { return "j" + strconv.Itoa(i) }

// jobOfID reads a TaskID back as the seam's job number.
func jobOfID(id string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimPrefix(id, "j"), 10, 64)
	if err != nil || !strings.HasPrefix(id, "j") || n < 1 {
		return 0, fmt.Errorf("task ID %q is not one of durasim's (j1, j2, ...)", id)
	}
	return n, nil
}

// prepare makes durasim's tables and empties them.
func prepare(ctx context.Context, pool *pgxpool.Pool) error {
	for _, q := range schema {
		if _, err := pool.Exec(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// openPool connects to url with at most conns connections.
func openPool(ctx context.Context, url, app string, conns int32) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = conns
	cfg.ConnConfig.RuntimeParams["application_name"] = app
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return pool, nil
}
