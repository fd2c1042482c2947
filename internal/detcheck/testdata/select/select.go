// Package selectstmt waits on two channels at once.
package selectstmt

func Wait(a, b chan int) { // want channel
	select { // want select
	case <-a: // want channel
	case b <- 1: // want channel
	default:
	}
}
