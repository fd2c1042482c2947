package goqitetarget

import "github.com/durasim/durasim/target/effectsql"

// durasimSchema is durasim's tables beside goqite's, written in the same
// transactions as goqite's statements:
//   - durasim_job: what a user of goqite keeps to know its jobs (goqite
//     deletes a message once done, keeps no state, no attempt history):
//     the job's number (seq, the seam's JobID), its goqite message and
//     queue, its kind, args and max receives as inserted, the adapter's
//     last word on it (note), who received it and when, its errors, and,
//     once goqite deleted the message, its last receive count;
//   - durasim_effect and durasim_ledger: the handlers' effects and the
//     deduplicating handlers' keys, as beside River (package effectsql).
func durasimSchema(serial string) []string {
	return append(effectsql.Schema(serial),
		`CREATE TABLE IF NOT EXISTS durasim_job (seq `+serial+`, msg TEXT NOT NULL UNIQUE, queue TEXT NOT NULL,
			kind TEXT NOT NULL, tenant TEXT NOT NULL, doc TEXT NOT NULL, version INTEGER NOT NULL, source BIGINT NOT NULL,
			max_receive INTEGER NOT NULL, uniq INTEGER NOT NULL, note TEXT NOT NULL, attempted_by TEXT NOT NULL DEFAULT '',
			attempted_at BIGINT NOT NULL DEFAULT 0, finalized_at BIGINT NOT NULL DEFAULT 0, errors INTEGER NOT NULL DEFAULT 0,
			received INTEGER NOT NULL DEFAULT 0, sent_at BIGINT NOT NULL)`)
}
