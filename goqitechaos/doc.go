// Package goqitechaos is durasim's real-crash mode for goqite
// (maragu.dev/goqite): goqite's own queue API in child processes on one
// SQLite file, SIGKILLed at named points of the handler, frozen (SIGSTOP)
// past the visibility timeout, restarted, and checked from the
// children's histories and the file with the target checks fed a
// partial history ([invariants.CheckTarget]).
//
// `durasim chaos -target goqite` runs it ([Run]); `durasim goqite-worker`
// is one child ([RunChild]). It is a workload on package crash's
// supervisor through package crash/workload, as riverchaos and
// asynqchaos are: this package is goqite's adapter only (its sends, its
// table read back, its worker process).
//
// # What is goqite's code and what is durasim's
//
// goqite's: SendAndGetIDTx (the orchestrator's inserts), ReceiveTx (a
// worker's fetch, with its receive count and visibility timeout),
// ExtendTx (the retry delay after an error), DeleteTx (the completion:
// in the handler's transaction for the transactional designs, after the
// handler for the others) and its schema_sqlite.sql, as the deterministic
// mode (target/goqitetarget) applies it; SQLite's own strftime and
// randomblob, and real time: every timeout is written and compared on
// the process's clock.
//
// durasim's: the worker loop around goqite's calls (goqite's jobs.Runner
// hands its functions only the body, not the message id or its receive
// count, so the loop is durasim's: receive, handle, delete or extend);
// durasim_job, the record of each job goqite does not keep (its number,
// its last receive count once deleted, its errors), written in the
// transactions of goqite's calls; the handlers and their effects; the
// retry delay (goqite has none: an error extends the message's timeout
// by RetryBase·n², the deterministic mode's rule).
//
// # Kill points and freezes
//
// after_fetch, after_effect, before_commit (DeleteTx done, not
// committed: the transactional designs) and after_commit; SQLite rolls
// back what a killed process had not committed. goqite has no lease to
// extend and no rescuer: a frozen child's message is received again once
// its timeout passes, and the child, thawed, finds out only when its
// delete does nothing (tx-checked sees the receive count moved on, and
// rolls back). A child frozen inside a transaction holds SQLite's one
// write lock until it wakes: every other process waits on its busy
// timeout meanwhile.
package goqitechaos
