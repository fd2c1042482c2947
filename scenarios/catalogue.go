package scenarios

// catalogue is every scenario, in the order.
var catalogue = []Scenario{
	openingIncident(),
	zombieWorker(),
	infiniteRetry(),
	llmInReplay(),
	dualWrite(),
	crossTenant(),
	poisonDLQ(),
	deadlineCancel(),
	reprocessAudited(),
	redriveKeys(),
	retryStorm(),
	circuitBreaker(),
	headOfLine(),
	syntheticMetrics(),
	asyncRequestReply(),
	relayRepublish(),
	sqliteLab(),
}
