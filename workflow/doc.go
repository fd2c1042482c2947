// Package workflow is a small model of a durable workflow engine, the way
// Temporal runs one (seed 000, "Fila local vs. workflow durável" and its
// failure 2): workflow code issues commands, the engine records them and
// their results as a history, and a worker that takes an execution over
// rebuilds its state by replaying the code against that history
// ([RunWorkflow], [ReplayWorkflow]). Code that decides from an unrecorded,
// varying source (an LLM called in the workflow body) is rejected as
// nondeterministic ([ErrNondeterministic]); the same call inside an
// [Activity] is recorded once and replays cleanly.
//
// A worker that picks an execution up runs one workflow task ([Advance]):
// it replays the recorded history and executes the next activity, so an
// execution moves on one task at a time, by whichever worker holds it.
// Where a task stops the code (its next activity is beyond the task's
// budget, or a command does not match the history),
// [WorkflowContext.ExecuteActivity] unwinds the workflow function;
// [WorkflowContext.TryExecuteActivity] says false instead, for code that
// then returns at once (the swarm's, which replays many times a seed).
//
// It is apart from package model, whose pipeline it shares nothing with;
// the llm-in-replay scenario runs it, and so does the swarm, for a share of
// the documents (sim/workflow.go). Like the simulated core it reads no
// clock and starts no goroutine (internal/detcheck scans it).
package workflow
