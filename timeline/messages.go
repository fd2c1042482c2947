package timeline

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/durasim/durasim/invariants"
)

// Violation messages in Portuguese. The invariants write their messages
// in English (package invariants, one sentence built by fmt.Sprintf per
// finding); the pages a Portuguese reader opens show them in Portuguese,
// with the English original a click away. Each message's shape — its
// words, with the ids, numbers and codes it quotes as holes — maps to a
// Portuguese sentence with the same holes. A message whose shape is not
// here has no translation ([Lang.Message] says so): reports' tests fail
// on one, naming its shape, so that a new finding cannot slip into a
// Portuguese page in English.
//
// In a shape, {} is one word the message quotes as it is (an id, a
// number, a key, a code), {*} any stretch of text quoted as it is,
// {field} a field name (fieldNames, translated) and {effects} a list of
// "jN attempt N by wN" joined by "; " (each item translated), {dead} a
// list of dead jobs an operator could bring back, joined by ", " outside
// parentheses (each item one of deadShapes). In the Portuguese, {1},
// {2}… are the holes in order.

// messageShapes lists each shape and its Portuguese, in pairs.
var messageShapes = []string{
	// bounded-retries
	"{} leased after it went {}", "{1} recebeu lease depois de ficar {2}",
	"{} leased for attempt {} of at most {}", "{1} recebeu lease para a tentativa {2} de no máximo {3}",
	"{} leased for attempt {} with {} of its {} tokens already spent", "{1} recebeu lease para a tentativa {2} com {3} dos seus {4} tokens já gastos",
	"{} leased at {}, at or after its deadline {}", "{1} recebeu lease em {2}, no deadline {3} ou depois dele",
	"{} retried after a permanent error ({}): it belongs in the DLQ on the first attempt", "{1} voltou para retry depois de um erro permanente ({2}): seu lugar é a DLQ na primeira tentativa",
	"{} retried after attempt {} of at most {}", "{1} voltou para retry depois da tentativa {2} de no máximo {3}",
	"{} retried with {} of its {} tokens spent", "{1} voltou para retry com {2} dos seus {3} tokens gastos",
	"{} retry scheduled for {}, at or after its deadline {}", "retry de {1} agendado para {2}, no deadline {3} ou depois dele",
	// exactly-once-effect
	"{} stage={} applied twice under key {}", "{1} stage={2} aplicado duas vezes sob a chave {3}",
	"{} stage={} applied twice, the second time under key {}", "{1} stage={2} aplicado duas vezes, a segunda sob a chave {3}",
	"{} stage={} committed twice under key {} ({}, then {}): the second commit must deduplicate", "{1} stage={2} teve dois commits sob a chave {3} ({4}, depois {5}): o segundo commit deveria deduplicar",
	"{} succeeded but stage={} has no applied effect", "{1} terminou com sucesso, mas stage={2} não tem efeito aplicado",
	"{} stage={} has {} applied effects in the final state", "{1} stage={2} tem {3} efeitos aplicados no estado final",
	// fencing
	"{} {} with stale fence {} changed state (current fence {})", "{1}: {2} com o fence velho {3} mudou o estado (fence atual {4})",
	"{} leased with fence {} while fence {} is valid until {}", "{1} recebeu lease com o fence {2} enquanto o fence {3} vale até {4}",
	"{} {} with the current fence {} refused as stale", "{1}: {2} com o fence atual {3} recusado como velho",
	"{} {} by {}, but fence {} is held by {}", "{1}: {2} por {3}, mas o fence {4} está com {5}",
	// nothing-lost
	"{} was never given a job id: its requests were refused", "{1} nunca recebeu um id de job: seus pedidos foram recusados",
	"{} was never given a job id: no request of its was answered", "{1} nunca recebeu um id de job: nenhum pedido seu teve resposta",
	"{} {} past stage {}, whose result was never committed under key {}", "{1}: {2} além do estágio {3}, cujo resultado nunca teve commit sob a chave {4}",
	"{} returned to the client but never enqueued", "{1} voltou ao cliente, mas nunca entrou na fila",
	"{} stage={} written to the database under key {} but its event was never published", "{1} stage={2} gravado no banco sob a chave {3}, mas seu evento nunca foi publicado",
	"the client of {} was given an id that now names the job of {}: its own job was never enqueued", "o cliente de {1} recebeu um id que agora nomeia o job de {2}: o job dele nunca entrou na fila",
	"{} ended {}, not succeeded, dead or cancelled", "{1} terminou {2}, e não succeeded, dead ou cancelled",
	"{} ({} stage={}) published but never applied", "{1} ({2} stage={3}) publicado, mas nunca aplicado",
	"{} ({} key {} stage={}) committed but never published", "{1} ({2} chave {3} stage={4}) com commit, mas nunca publicado",
	// consistency: the system's own state read back against the history
	"DLQ entry of {}: {field} is {*}, the history says {*}", "entrada da DLQ de {1}: {2} é {3}, o histórico diz {4}",
	"{} stage={} reads back as {} with payload {}; the history committed {} with payload {}", "{1} stage={2} é lido de volta como {3} com payload {4}; o histórico registrou o commit de {5} com payload {6}",
	"{} DLQ entry says {} attempts and {} tokens, the history counts {} and {}", "a entrada da DLQ de {1} diz {2} tentativas e {3} tokens; o histórico conta {4} e {5}",
	"{} DLQ reason {}, the policy gives {}", "{1}: motivo na DLQ {2}, a política dá {3}",
	"{} {field} is {*} in the final state, {*} by the history", "{1}: {2} é {3} no estado final, {4} pelo histórico",
	"{} lease says attempt {}, the history counts {} since its enqueue", "o lease de {1} diz tentativa {2}; o histórico conta {3} desde o enqueue",
	"{} of {} refused as {}, but the history has the job {}", "{1} de {2} recusado como {3}, mas o histórico tem o job {4}",
	"status of {} answered {}, the history says {}", "o status de {1} respondeu {2}; o histórico diz {3}",
	// dlq-hygiene
	"DLQ entry of {} keeps the raw error text", "a entrada da DLQ de {1} guarda o texto cru do erro",
	"{} dead-lettered with reason {}, not a DLQ reason code", "{1} foi para a DLQ com o motivo {2}, que não é um código de motivo da DLQ",
	// reprocess-redrive
	"redrive changed the key of {} from {} to {}", "o redrive mudou a chave de {1} de {2} para {3}",
	"redrive moved the checkpoint of {} from {} to {}: committed stages run again", "o redrive moveu o checkpoint de {1} de {2} para {3}: estágios que já tiveram commit rodam de novo",
	"reprocess of {} enqueued no new job (other={})", "o reprocesso de {1} não criou job novo (other={2})",
	"reprocess of {} names no operator", "o reprocesso de {1} não nomeia operador",
	"reprocess of {} beyond tenant {}'s limit of {} per {}", "reprocesso de {1} além do limite do tenant {2}, de {3} por {4}",
	"{} of cancelled {}: cancelled is terminal", "{1} de {2} cancelado: cancelled é terminal",
	// tenant-isolation
	"{} enqueued under key {}, which is not tenant:document:v{} of a valid tenant {}", "{1} entrou na fila sob a chave {2}, que não é tenant:document:v{3} de um tenant válido {4}",
	"key {} of tenant {} carried by tenant {} ({})", "a chave {1} do tenant {2} levada pelo tenant {3} ({4})",
	"status of {} (tenant {}) answered to tenant {}", "status de {1} (tenant {2}) respondido ao tenant {3}",
	// wasted-work
	"{}: {} started at stage {} under fence {}, but the job's checkpoint was {}", "{1}: {2} começou no estágio {3} sob o fence {4}, mas o checkpoint do job era {5}",
	// the target's checks (a real queue, e.g. River)
	"document {} completed ({}) with no effect", "o documento {1} foi concluído ({2}) sem efeito",
	"document {} has {} effects ({effects})", "o documento {1} tem {2} efeitos ({3})",
	"{} (tenant {}) wrote its effect under key {}, which {} of tenant {} wrote first", "{1} (tenant {2}) gravou seu efeito sob a chave {3}, que {4} do tenant {5} gravou antes",
	"{} fetched for attempt {} of at most {}", "{1} foi buscado para a tentativa {2} de no máximo {3}",
	"the database has {} at attempt {} of {}; the history says at most {}", "o banco tem {1} na tentativa {2} de {3}; o histórico diz no máximo {4}",
	"{} made {} effects of {} attempt {} durable; the database holds {}", "{1} tornou duráveis {2} efeitos de {3} tentativa {4}; o banco guarda {5}",
	"{} reported {} on {} (attempt {} of {}) and the queue made it {}, not {}", "{1} reportou {2} sobre {3} (tentativa {4} de {5}) e a fila o deixou {6}, e não {7}",
	"{} was handed attempt {} of {}; the database ends at attempt {}", "{1} recebeu a tentativa {2} de {3}; o banco termina na tentativa {4}",
	"{}'s report ({}) on {} was refused though it still held the job", "o report de {1} ({2}) sobre {3} foi recusado, embora ele ainda tivesse o job",
	"a unique insert created {} although {}, with the same args, is {}", "um insert único criou {1}, embora {2}, com os mesmos args, esteja {3}",
	"a unique insert was skipped as a duplicate of {}, which is {} (not a unique state)", "um insert único foi ignorado como duplicata de {1}, que está {2} (não é um estado único)",
	"a unique insert was skipped as a duplicate of {}, which no insert created", "um insert único foi ignorado como duplicata de {1}, que nenhum insert criou",
	"a unique insert was skipped as a duplicate of {}, whose kind or args differ", "um insert único foi ignorado como duplicata de {1}, cujo kind ou args diferem",
	"after {}'s report {} is at attempt {}; the history counts {}", "depois do report de {1}, {2} está na tentativa {3}; o histórico conta {4}",
	"an insert returned {}, which an earlier insert created", "um insert devolveu {1}, que um insert anterior criou",
	"an insert without unique options was skipped as a duplicate of {}", "um insert sem opções de unicidade foi ignorado como duplicata de {1}",
	"an operator's retry brought {} back although {}, with the same args, is {}", "um retry do operador trouxe {1} de volta, embora {2}, com os mesmos args, esteja {3}",
	"an operator's retry of {} was refused as a unique conflict, but no live job has its args", "um retry do operador de {1} foi recusado como conflito de unicidade, mas nenhum job vivo tem seus args",
	"attempt {} of {} was handed to {} and to {}", "a tentativa {1} de {2} foi entregue a {3} e a {4}",
	"completing {} in a transaction failed ({}), though it was running (fetched by {})", "concluir {1} numa transação falhou ({2}), embora ele estivesse rodando (buscado por {3})",
	"completing {} in a transaction returned {}, though it was running (fetched by {})", "concluir {1} numa transação devolveu {2}, embora ele estivesse rodando (buscado por {3})",
	"completing {} in a transaction returned it {}; the history has it {} ({} by {})", "concluir {1} numa transação o devolveu {2}; o histórico o tem {3} ({4} por {5})",
	"completing {}, {}, in a transaction failed ({}); the policy returns the row", "concluir {1}, {2}, numa transação falhou ({3}); a política devolve a linha",
	"completing {}, {}, in a transaction returned it {}, not the error the policy says", "concluir {1}, {2}, numa transação o devolveu {3}, e não o erro que a política diz",
	"completing {}, {}, in a transaction returned it {}; the policy completes it", "concluir {1}, {2}, numa transação o devolveu {3}; a política o conclui",
	"document {} has an effect ({} attempt {}) but no job of it completed", "o documento {1} tem um efeito ({2} tentativa {3}), mas nenhum job dele foi concluído",
	"effect {} names {}, which neither an insert nor the database has", "o efeito {1} nomeia {2}, que nem um insert nem o banco têm",
	"effect {} of {} is tenant {}'s document {}; the job is tenant {}'s document {}", "o efeito {1} de {2} é do documento {4} do tenant {3}; o job é do documento {6} do tenant {5}",
	"{} and {}, unique with the same args, are {} and {}", "{1} e {2}, únicos com os mesmos args, estão {3} e {4}",
	"{} completed in {}'s transaction though the history has it {}", "{1} foi concluído na transação de {2}, embora o histórico o tenha {3}",
	"{} fetched as attempt {}; the history counts {} attempts before", "{1} foi buscado como tentativa {2}; o histórico conta {3} tentativas antes",
	"{} was {} ({} by {}); the database says {}", "{1} ficou {2} ({3} por {4}); o banco diz {5}",
	"{} was fetched at {}, before {}, the time {} set for its next run", "{1} foi buscado em {2}, antes de {3}, a hora que {4} marcou para a próxima execução",
	"{} was fetched by {} while running (fetched by {}), never rescued since", "{1} foi buscado por {2} enquanto rodava (buscado por {3}), sem resgate desde então",
	"{}'s {} after error {} is due in {}, outside the policy's [{}, {}]", "o {2} de {1} depois do erro {3} vence em {4}, fora do intervalo da política [{5}, {6}]",
	"{}, inserted, is not in the database", "{1}, inserido, não está no banco",
	"the database has {} {}; the history left it {} ({} by {})", "o banco tem {1} {2}; o histórico o deixou {3} ({4} por {5})",
	"the database has {} at attempt {} of at most {}", "o banco tem {1} na tentativa {2} de no máximo {3}",
	"the database has {} at attempt {}; the history counts {}", "o banco tem {1} na tentativa {2}; o histórico conta {3}",
	"the database has {}'s kind, args or unique option other than its insert gave", "o banco tem kind, args ou opção de unicidade de {1} diferentes do que seu insert deu",
	"the database holds {} effects of {} attempt {} by {}; its history made {} durable", "o banco guarda {1} efeitos de {2} tentativa {3} por {4}; seu histórico tornou {5} duráveis",
	"the database holds {}, which no insert returned", "o banco guarda {1}, que nenhum insert devolveu",
	"the rescuer changed {} to {} although {} fetched it after the rescuer read it as stuck", "o rescuer mudou {1} para {2}, embora {3} o tenha buscado depois que o rescuer o leu como preso",
	"the rescuer found {} running; the history has it {}", "o rescuer achou {1} rodando; o histórico o tem {2}",
	"the rescuer made {} (attempt {} of {}) {}, not {}", "o rescuer deixou {1} (tentativa {2} de {3}) {4}, e não {5}",
	"the rescuer read {} as stuck at {}, attempted at {}: less than the policy's {} before", "o rescuer leu {1} como preso em {2}, tentado em {3}: menos que os {4} da política antes",
	"the scheduler discarded {} as a unique duplicate, but no other job holds its args", "o scheduler descartou {1} como duplicata única, mas nenhum outro job tem seus args",
	"the scheduler made {} available at {}, before {}, the time {} set", "o scheduler deixou {1} disponível em {2}, antes de {3}, a hora que {4} marcou",
	"the scheduler made {} available; the history has it {}", "o scheduler deixou {1} disponível; o histórico o tem {2}",
	// bounded-retries: the deadline bounds running work
	"{} stage={} work started at {}, at or after its deadline {}, and ran for {}: work begun past the deadline is cut at once",
	"{1} stage={2}: o trabalho começou em {3}, no deadline {4} ou depois dele, e durou {5}: trabalho começado depois do deadline é cortado na hora",
	"{} stage={} work began at {}, before its deadline {}, and ran until {}, past it: the call is cut at the deadline",
	"{1} stage={2}: o trabalho começou em {3}, antes do deadline {4}, e foi até {5}, depois dele: a chamada é cortada no deadline",
	"{} stage={} committed by {} at {}, at or after its deadline {}: past its deadline a job's work commits, checkpoints and acks nothing",
	"{1} stage={2}: commit por {3} em {4}, no deadline {5} ou depois dele: passado o deadline, o trabalho de um job não faz commit, checkpoint nem ack",
	"{} checkpointed at stage={} by {} at {}, at or after its deadline {}: past its deadline a job's work commits, checkpoints and acks nothing",
	"{1}: checkpoint em stage={2} por {3} em {4}, no deadline {5} ou depois dele: passado o deadline, o trabalho de um job não faz commit, checkpoint nem ack",
	"{} acked by {} at {}, at or after its deadline {}: past its deadline a job's work commits, checkpoints and acks nothing",
	"{1}: ack por {2} em {3}, no deadline {4} ou depois dele: passado o deadline, o trabalho de um job não faz commit, checkpoint nem ack",
	// liveness and wasted-work: runbooks judged by their outcome
	"the run ended at {} with {} dead jobs an operator action could bring back, still dead at the end: {dead} and {} more",
	"a execução terminou em {1} com {2} jobs mortos que uma ação do operador poderia trazer de volta, ainda mortos no fim: {3} e mais {4}",
	"the run ended at {} with {} dead jobs an operator action could bring back, still dead at the end: {dead}",
	"a execução terminou em {1} com {2} jobs mortos que uma ação do operador poderia trazer de volta, ainda mortos no fim: {3}",
	"redrive of {} with its failure cause unchanged ({}: a redrive sends the same document at the same version again, only a reprocess changes it) left it dead again ({})",
	"o redrive de {1} com a causa da falha inalterada ({2}: um redrive manda o mesmo documento na mesma versão de novo, só um reprocessamento o muda) o deixou morto de novo ({3})",
	"redrive of {} with its failure cause unchanged ({}: the faults had not stopped) left it dead again ({})",
	"o redrive de {1} com a causa da falha inalterada ({2}: as falhas não tinham parado) o deixou morto de novo ({3})",
}

// deadShapes are the items of a {dead} list: a dead job, its reason, what
// brings it back, and a rate-limited refusal of it if there was one.
var deadShapes = compileShapes([]string{
	"{} ({}; a reprocess at {} redoes it; refused as rate_limited at {}, the limit had a token again at {})",
	"{1} ({2}; um reprocessamento em {3} o refaz; recusado como rate_limited em {4}, o limite tinha um token de novo em {5})",
	"{} ({}; a redrive after the faults stopped at {} runs it afresh; refused as rate_limited at {}, the limit had a token again at {})",
	"{1} ({2}; um redrive depois que as falhas pararam em {3} o roda do zero; recusado como rate_limited em {4}, o limite tinha um token de novo em {5})",
	"{} ({}; a reprocess at {} redoes it)", "{1} ({2}; um reprocessamento em {3} o refaz)",
	"{} ({}; a redrive after the faults stopped at {} runs it afresh)", "{1} ({2}; um redrive depois que as falhas pararam em {3} o roda do zero)",
})

// effectShape is one item of an {effects} list.
var effectShape = []string{"{} attempt {} by {}", "{1} tentativa {2} por {3}"}

// fieldNames are the fields a consistency message names, in Portuguese.
var fieldNames = []string{
	"attempt", "tentativa",
	"attempts", "tentativas",
	"deadline", "deadline",
	"identity", "identidade",
	"lease end", "fim do lease",
	"payload", "payload",
	"state", "estado",
	"tokens", "tokens",
	"tokens spent", "tokens gastos",
	"visible-at", "visível a partir de",
}

// shape is one compiled message shape.
type shape struct {
	re    *regexp.Regexp
	holes []string // the kind of each hole: "", "*", "field", "effects"
	pt    string
}

var (
	shapes  = compileShapes(messageShapes)
	effects = compileShapes(effectShape)[0]
	holeRe  = regexp.MustCompile(`\{(\*|field|effects|dead)?\}`)
)

func compileShapes(pairs []string) []shape {
	out := make([]shape, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, compileShape(pairs[i], pairs[i+1]))
	}
	return out
}

// compileShape turns a shape into an anchored expression: {} matches a
// word, the others any text (the words around them decide where they
// end).
func compileShape(en, pt string) shape {
	var re strings.Builder
	re.WriteString("^")
	var holes []string
	last := 0
	for _, m := range holeRe.FindAllStringSubmatchIndex(en, -1) {
		re.WriteString(regexp.QuoteMeta(en[last:m[0]]))
		kind := ""
		if m[2] >= 0 {
			kind = en[m[2]:m[3]]
		}
		if kind == "" {
			re.WriteString(`(\S+)`)
		} else {
			re.WriteString(`(.+?)`)
		}
		holes = append(holes, kind)
		last = m[1]
	}
	re.WriteString(regexp.QuoteMeta(en[last:]))
	re.WriteString("$")
	return shape{re: regexp.MustCompile(re.String()), holes: holes, pt: pt}
}

// translate fills the shape's Portuguese with msg's holes; false when msg
// is not of the shape or a hole has no translation.
func (s shape) translate(msg string) (string, bool) {
	m := s.re.FindStringSubmatch(msg)
	if m == nil {
		return "", false
	}
	vals := make([]string, len(s.holes))
	for i, kind := range s.holes {
		v, ok := m[i+1], true
		switch kind {
		case "field":
			v, ok = field(v)
		case "effects":
			v, ok = effectList(v)
		case "dead":
			v, ok = deadList(v)
		}
		if !ok {
			return "", false
		}
		vals[i] = v
	}
	out := s.pt
	for i := len(vals); i >= 1; i-- { // {12} before {1}
		out = strings.ReplaceAll(out, "{"+strconv.Itoa(i)+"}", vals[i-1])
	}
	return out, true
}

func field(name string) (string, bool) {
	for i := 0; i+1 < len(fieldNames); i += 2 {
		if fieldNames[i] == name {
			return fieldNames[i+1], true
		}
	}
	return "", false
}

func effectList(s string) (string, bool) {
	items := strings.Split(s, "; ")
	for i, it := range items {
		t, ok := effects.translate(it)
		if !ok {
			return "", false
		}
		items[i] = t
	}
	return strings.Join(items, "; "), true
}

// deadList translates a {dead} list item by item; its items are joined
// by ", " outside the parentheses each item carries.
func deadList(s string) (string, bool) {
	var items []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '(':
			depth++
		case s[i] == ')':
			depth--
		case depth == 0 && strings.HasPrefix(s[i:], ", "):
			items = append(items, s[start:i])
			start = i + 2
		}
	}
	items = append(items, s[start:])
	for i, it := range items {
		t, ok := "", false
		for _, sh := range deadShapes {
			if t, ok = sh.translate(it); ok {
				break
			}
		}
		if !ok {
			return "", false
		}
		items[i] = t
	}
	return strings.Join(items, ", "), true
}

// Message is a violation's message (invariants.Violation.Message) in
// language l, and whether it has one: in English it is itself; in
// Portuguese it is its shape's translation, or, for a shape this package
// does not know, the English message and false.
func (l Lang) Message(msg string) (string, bool) {
	if l != PtBR {
		return msg, true
	}
	for _, s := range shapes {
		if t, ok := s.translate(msg); ok {
			return t, true
		}
	}
	return msg, false
}

// ViolationText is v as v.String() writes it — its invariant, its message
// and the events it names — in language l; false when its message has no
// translation (the text is then English).
func (l Lang) ViolationText(v invariants.Violation) (string, bool) {
	if l != PtBR {
		return v.String(), true
	}
	msg, ok := l.Message(v.Message)
	// v.String()'s events, " (events #3, #9)", with their word in Portuguese
	events := strings.TrimPrefix(v.String(), v.Invariant+": "+v.Message)
	return v.Invariant + ": " + msg + strings.Replace(events, " (event", " (evento", 1), ok
}
