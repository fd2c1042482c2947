// Package goqiterepro reproduces, without durasim, what durasim's sweep
// of goqite (target/goqitetarget) found in maragu.dev/goqite v0.4.0: plain
// Go tests against goqite alone, on an in-memory SQLite database
// (modernc.org/sqlite), goqite's clock faked by testing/synctest.
//
// goqite's Delete and Extend name a message by id, with no receipt of
// the receive they come from, so a worker whose receive was superseded
// (its timeout ran out and another worker received the message) still
// deletes the message, or moves its timeout, under the worker that now
// holds it; and a message that failed its last receive, which goqite
// will never hand out again, is deleted by that superseded worker's late
// Delete as if done. goqite's README promises only that a message is
// "guaranteed to not be redelivered before a timeout occurs", which
// holds; these are what a handler must allow for on top.
package goqiterepro
