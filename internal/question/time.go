package question

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kgmem/kgmem/internal/textrule"
)

// TimeKind is what a time cue asks for.
type TimeKind uint8

// The kinds of time cue.
const (
	TimeNow    TimeKind = iota // "now": the default instant
	TimeAt                     // an instant or a period
	TimeAll                    // every value over time
	TimeBefore                 // just before an instant or a fact
	TimeAfter                  // after an instant or a fact
	TimeDuring                 // while a fact held
)

// TimeCue is one phrase of a question about time.
type TimeCue struct {
	// Kind is what the cue asks for.
	Kind TimeKind
	// Own are the byte spans of the time words themselves; a cue whose
	// words overlap an entity mention is dropped.
	Own [][2]int
	// Mask are the byte spans hidden from linking and relation matching:
	// Own, and for an order relative to a fact, the clause naming it.
	Mask [][2]int
	// From, To and Label: for TimeAt, and for an order relative to a
	// time, the period [From, To) and its label ("2023", "2021-03").
	From, To time.Time
	Label    string
	// Timed reports that From and To are set.
	Timed bool
	// Clause is, for an order relative to a fact, the byte span where the
	// entity of the fact is named; Last picks the last mention in it
	// (Chinese, where the order word follows) instead of the first.
	Clause [2]int
	Last   bool
	// Starts and Ends say which end of the fact the clause names
	// ("joined", "left"); neither means before its start, after its end.
	Starts, Ends bool
}

// Words returns the cue's words as written: its own spans joined by a
// space.
func (c *TimeCue) Words(query string) string {
	parts := make([]string, 0, len(c.Own))
	for _, s := range c.Own {
		parts = append(parts, query[s[0]:s[1]])
	}
	if c.Clause[1] > c.Clause[0] && len(c.Mask) > 0 {
		// An order relative to a fact: the whole masked phrase.
		m := c.Mask[len(c.Mask)-1]
		return strings.TrimSpace(query[m[0]:m[1]])
	}
	return strings.Join(parts, " ")
}

// English vocabulary of time.
var (
	monthNames = map[string]time.Month{
		"january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
		"may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9,
		"sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
	}
	numberWords = map[string]int{
		"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
		"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "couple": 2, "several": 3,
	}
	nowWords = map[string]bool{
		"now": true, "currently": true, "current": true, "presently": true, "nowadays": true, "today": true,
		"still": true,
	}
	historyWords = map[string]bool{
		"ever": true, "previously": true, "formerly": true, "former": true, "past": true, "previous": true,
		"earlier": true, "once": true,
	}
	orderWords = map[string]TimeKind{
		"before": TimeBefore, "until": TimeBefore, "till": TimeBefore, "after": TimeAfter, "since": TimeAfter,
		"following": TimeAfter, "while": TimeDuring, "during": TimeDuring, "when": TimeDuring,
	}
	startWords = map[string]bool{
		"joined": true, "join": true, "joining": true, "joins": true, "started": true, "start": true, "starting": true,
		"moved": true, "move": true, "moving": true, "began": true, "begin": true, "beginning": true, "became": true,
		"arrived": true, "arriving": true, "hired": true, "entered": true, "relocated": true, "relocating": true,
	}
	endWords = map[string]bool{
		"left": true, "leave": true, "leaving": true, "quit": true, "quitting": true, "departed": true,
		"departing": true, "stopped": true, "ended": true, "resigned": true, "retired": true,
	}
	// irregularParticiples are past participles that do not end in -ed.
	irregularParticiples = map[string]bool{
		"been": true, "had": true, "held": true, "gone": true, "done": true, "made": true, "taught": true,
		"led": true, "won": true, "written": true, "built": true, "known": true, "met": true, "seen": true,
		"taken": true, "run": true, "dwelt": true, "spent": true, "belonged": true, "given": true, "sat": true,
	}
	auxiliaries = map[string]bool{"has": true, "have": true, "had": true, "s": true, "ve": true}
)

// MinYear and MaxYear bound the years of a date a question writes: those
// of a valid time.
const (
	MinYear = 1
	MaxYear = 9999
)

// Chinese patterns of time.
const (
	zhDigits = `[0-9０-９〇零一二两三四五六七八九十]`
)

var (
	zhDate = regexp.MustCompile(`(在|于|從|从)?(` + zhDigits + `{4})年(?:(` + zhDigits + `{1,3})月(?:(` + zhDigits +
		`{1,3})[日号])?)?(上半年|下半年|年初|年底|年末|年中|初|底|末|中)?(之前|以前|之后|以后|前|后|起)?`)
	zhAgo      = regexp.MustCompile(`(` + zhDigits + `{1,3}|几)(年|个月|個月|周|个星期|天)(之?前|以前)`)
	zhRelative = regexp.MustCompile(`(在|于)?(大前年|前年|去年|今年|上个月|上個月|上月|这个月|這個月|本月)`)
	zhPunct    = "，,。？?！!；;：:"
	// The Chinese words of now, of history and of order, longest first
	// where one holds another.
	zhNow     = []string{"现在", "現在", "目前", "当前", "當前", "如今", "眼下", "现任", "現任", "当下", "此刻"}
	zhHistory = []string{"一直以来", "曾经", "曾經", "历来", "歷來", "先后", "先後", "过去", "過去", "历任", "歷任", "以往", "从前", "從前", "曾"}
	zhOrder   = []string{"的时候", "的時候", "期间", "期間", "之前", "以前", "之后", "之後", "以后", "以後"}
)

// ParseTime returns the time cues of query, whose units (textrule.SplitUnits)
// are units, in order of position, with the periods that depend on the
// clock read at now. Cues do not overlap.
func ParseTime(query string, units []textrule.Unit, now time.Time) []TimeCue {
	var cues []TimeCue
	taken := func(s, e int) bool {
		for i := range cues {
			for _, m := range cues[i].Own {
				if s < m[1] && m[0] < e {
					return true
				}
			}
		}
		return false
	}
	add := func(c TimeCue) {
		for _, s := range c.Own {
			if taken(s[0], s[1]) {
				return
			}
		}
		if len(c.Mask) == 0 {
			c.Mask = c.Own
		}
		cues = append(cues, c)
	}
	if hasCJK(query) {
		parseChinese(query, now, add)
	}
	parseEnglish(query, units, now, add)
	sortCues(cues)
	return cues
}

func sortCues(cues []TimeCue) {
	for i := 1; i < len(cues); i++ {
		for j := i; j > 0 && cues[j].Own[0][0] < cues[j-1].Own[0][0]; j-- {
			cues[j], cues[j-1] = cues[j-1], cues[j]
		}
	}
}

func hasCJK(s string) bool {
	for _, r := range s {
		if textrule.IsCJK(r) {
			return true
		}
	}
	return false
}

// zhNumber reads a number written in digits (ASCII or full width) or in
// Chinese numerals ("二〇二三", "十二", "两"); ok is false otherwise.
func zhNumber(s string) (int, bool) {
	if s == "几" {
		return 3, true
	}
	digits := map[rune]int{'〇': 0, '零': 0, '一': 1, '二': 2, '两': 2, '三': 3, '四': 4, '五': 5, '六': 6, '七': 7, '八': 8, '九': 9}
	var plain strings.Builder
	positional := !strings.ContainsRune(s, '十')
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			plain.WriteRune(r)
		case r >= '０' && r <= '９':
			plain.WriteRune('0' + (r - '０'))
		case positional:
			d, ok := digits[r]
			if !ok {
				return 0, false
			}
			plain.WriteRune(rune('0' + d))
		}
	}
	if positional {
		n, err := strconv.Atoi(plain.String())
		return n, err == nil
	}
	// 十, 十二, 二十, 二十三.
	tens, ones, seenTen := 0, 0, false
	for _, r := range s {
		if r == '十' {
			seenTen = true
			if ones == 0 {
				ones = 1
			}
			tens, ones = ones, 0
			continue
		}
		d, ok := digits[r]
		if !ok {
			return 0, false
		}
		ones = d
	}
	if !seenTen {
		return 0, false
	}
	return tens*10 + ones, true
}

// parseChinese finds the Chinese cues of query.
func parseChinese(query string, now time.Time, add func(TimeCue)) {
	hasYear, hasMonth := strings.Contains(query, "年"), strings.Contains(query, "月")
	if !hasYear && !hasMonth && !strings.ContainsAny(query, "周天现現目当當如眼此曾历歷先过過以从從一的期之") {
		return
	}
	parseChineseDates(query, now, add, hasYear, hasMonth)
	parseChineseWords(query, add)
}

// parseChineseDates finds the dates and the times relative to now.
func parseChineseDates(query string, now time.Time, add func(TimeCue), hasYear, hasMonth bool) {
	if !hasYear && !hasMonth {
		return
	}
	for _, m := range zhDate.FindAllStringSubmatchIndex(query, -1) {
		y, ok := zhNumber(query[m[4]:m[5]])
		if !ok || y < MinYear || y > MaxYear {
			continue
		}
		mon, day := 0, 0
		if m[6] >= 0 {
			if mon, ok = zhNumber(query[m[6]:m[7]]); !ok || mon < 1 || mon > 12 {
				continue
			}
		}
		if m[8] >= 0 {
			if day, ok = zhNumber(query[m[8]:m[9]]); !ok || day < 1 || day > 31 {
				day = 0
			}
		}
		from, to, label := datePeriod(y, time.Month(mon), day)
		if m[10] >= 0 {
			from, to = partOf(from, to, query[m[10]:m[11]])
		}
		c := TimeCue{Kind: TimeAt, Own: [][2]int{{m[0], m[1]}}, From: from, To: to, Label: label, Timed: true}
		if m[12] >= 0 {
			switch query[m[12]:m[13]] {
			case "之前", "以前", "前":
				c.Kind = TimeBefore
			case "起":
				c.Kind = TimeAt
			default:
				c.Kind = TimeAfter
			}
		}
		add(c)
	}
	for _, m := range zhAgo.FindAllStringSubmatchIndex(query, -1) {
		n, ok := zhNumber(query[m[2]:m[3]])
		if !ok || n <= 0 {
			continue
		}
		var at time.Time
		switch query[m[4]:m[5]] {
		case "年":
			at = now.AddDate(-n, 0, 0)
		case "个月", "個月":
			at = now.AddDate(0, -n, 0)
		case "周", "个星期":
			at = now.AddDate(0, 0, -7*n)
		default:
			at = now.AddDate(0, 0, -n)
		}
		from, to, label := dayPeriod(at)
		add(TimeCue{Kind: TimeAt, Own: [][2]int{{m[0], m[1]}}, From: from, To: to, Label: label, Timed: true})
	}
	for _, m := range zhRelative.FindAllStringSubmatchIndex(query, -1) {
		y, mo, _ := now.Date()
		var from, to time.Time
		var label string
		switch query[m[4]:m[5]] {
		case "大前年":
			from, to, label = datePeriod(y-3, 0, 0)
		case "前年":
			from, to, label = datePeriod(y-2, 0, 0)
		case "去年":
			from, to, label = datePeriod(y-1, 0, 0)
		case "今年":
			from, to, label = datePeriod(y, 0, 0)
		case "这个月", "這個月", "本月":
			from, to, label = datePeriod(y, mo, 0)
		default:
			p := time.Date(y, mo-1, 1, 0, 0, 0, 0, time.UTC)
			from, to, label = datePeriod(p.Year(), p.Month(), 0)
		}
		add(TimeCue{Kind: TimeAt, Own: [][2]int{{m[0], m[1]}}, From: from, To: to, Label: label, Timed: true})
	}
}

// parseChineseWords finds "now", history and order words.
func parseChineseWords(query string, add func(TimeCue)) {
	for _, m := range findWords(query, zhNow) {
		add(TimeCue{Kind: TimeNow, Own: [][2]int{{m[0], m[1]}}})
	}
	for _, m := range findWords(query, zhHistory) {
		add(TimeCue{Kind: TimeAll, Own: [][2]int{{m[0], m[1]}}})
	}
	// 都…过 and a verb's 过 ("住过"): something done at some time.
	if i := strings.Index(query, "过"); i >= 0 {
		for ; i >= 0 && i < len(query); i = nextIndex(query, "过", i+len("过")) {
			if !experiential(query, i) {
				continue
			}
			own := [][2]int{{i, i + len("过")}}
			if d := strings.LastIndex(clauseBefore(query, i), "都"); d >= 0 {
				d += clauseStart(query, i)
				own = [][2]int{{d, d + len("都")}, own[0]}
			}
			add(TimeCue{Kind: TimeAll, Own: own})
		}
	}
	for _, m := range findWords(query, zhOrder) {
		kind := TimeAfter
		switch query[m[0]:m[1]] {
		case "之前", "以前":
			kind = TimeBefore
		case "的时候", "的時候", "期间", "期間":
			kind = TimeDuring
		}
		c := TimeCue{Kind: kind, Own: [][2]int{{m[0], m[1]}}, Clause: [2]int{clauseStart(query, m[0]), m[0]}, Last: true}
		region := query[c.Clause[0]:c.Clause[1]]
		for _, w := range []string{"离开", "離開", "辞职", "辭職", "离职", "離職", "搬离", "搬離", "退出"} {
			if strings.Contains(region, w) {
				c.Ends = true
			}
		}
		for _, w := range []string{"加入", "搬到", "搬去", "搬进", "入职", "入職", "开始", "開始", "进入", "進入", "来到", "來到"} {
			if strings.Contains(region, w) {
				c.Starts = true
			}
		}
		add(c)
	}
}

// findWords returns the byte spans of every occurrence of words in s, in
// the order of words, then of position.
func findWords(s string, words []string) [][2]int {
	var out [][2]int
	for _, w := range words {
		for i := strings.Index(s, w); i >= 0; i = nextIndex(s, w, i+len(w)) {
			out = append(out, [2]int{i, i + len(w)})
		}
	}
	return out
}

func nextIndex(s, sub string, from int) int {
	if from >= len(s) {
		return -1
	}
	i := strings.Index(s[from:], sub)
	if i < 0 {
		return -1
	}
	return from + i
}

// experiential reports whether the 过 at byte i is the aspect of the verb
// before it ("住过", "工作过"), not part of a word (通过, 过去, 不过, 超过).
func experiential(query string, i int) bool {
	prev, _ := utf8.DecodeLastRuneInString(query[:i])
	next, _ := utf8.DecodeRuneInString(query[i+len("过"):])
	if !textrule.IsCJK(prev) || strings.ContainsRune("通经經不超难難越度路错錯", prev) {
		return false
	}
	return !strings.ContainsRune("去来來程年滤濾", next)
}

// clauseStart returns the byte offset where the clause holding byte i
// starts: after the last punctuation before it, or 0.
func clauseStart(query string, i int) int {
	if j := strings.LastIndexAny(query[:i], zhPunct); j >= 0 {
		_, size := utf8.DecodeRuneInString(query[j:])
		return j + size
	}
	return 0
}

func clauseBefore(query string, i int) string { return query[clauseStart(query, i):i] }

// datePeriod returns the period of a year, a month of it (mon > 0) or a
// day (day > 0), with its label.
func datePeriod(y int, mon time.Month, day int) (from, to time.Time, label string) {
	switch {
	case mon == 0:
		from = time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
		return from, from.AddDate(1, 0, 0), from.Format("2006")
	case day == 0:
		from = time.Date(y, mon, 1, 0, 0, 0, 0, time.UTC)
		return from, from.AddDate(0, 1, 0), from.Format("2006-01")
	}
	from = time.Date(y, mon, day, 0, 0, 0, 0, time.UTC)
	if from.Month() != mon {
		from = time.Date(y, mon+1, 0, 0, 0, 0, 0, time.UTC) // 31 in a 30-day month: its last day
	}
	return from, from.AddDate(0, 0, 1), from.Format("2006-01-02")
}

// dayPeriod returns the day that holds t, in UTC.
func dayPeriod(t time.Time) (from, to time.Time, label string) {
	y, m, d := t.UTC().Date()
	return datePeriod(y, m, d)
}

// partOf narrows a period to the part a word names: early, mid, late,
// 年初, 上半年.
func partOf(from, to time.Time, part string) (time.Time, time.Time) {
	span := to.Sub(from)
	switch part {
	case "early", "start", "beginning", "初", "年初", "上半年":
		return from, from.Add(span / 3)
	case "mid", "middle", "中", "年中":
		return from.Add(span / 3), from.Add(2 * span / 3)
	case "late", "end", "底", "末", "年底", "年末", "下半年":
		return from.Add(2 * span / 3), to
	}
	return from, to
}

// parseEnglish finds the English cues of query.
func parseEnglish(query string, toks []textrule.Unit, now time.Time, add func(TimeCue)) {
	key := func(i int) string {
		if i < 0 || i >= len(toks) || !toks[i].Word {
			return ""
		}
		return toks[i].Key
	}
	// between reports the raw text between tokens i and i+1.
	between := func(i int) string {
		if i+1 >= len(toks) {
			return query[toks[i].End:]
		}
		return query[toks[i].End:toks[i+1].Start]
	}
	clauseEnd := func(i int) int { // the last token of the clause from token i on
		for j := i; j < len(toks); j++ {
			if !toks[j].Word && strings.ContainsAny(toks[j].Key, zhPunct) || strings.ContainsAny(between(j), ",;?!.:，。？！；") {
				return j
			}
		}
		return len(toks) - 1
	}
	span := func(i, j int) [2]int { return [2]int{toks[i].Start, toks[j].End} }
	ago := slices.ContainsFunc(toks, func(t textrule.Unit) bool { return t.Key == "ago" })
	for i := 0; i < len(toks); i++ {
		w := key(i)
		if w == "" || !timeTrigger(w, ago) {
			continue
		}
		// An instant or a period, with the words before it that belong to
		// it ("in", "early", "the start of").
		if !periodStart(w, ago) {
			// not the start of a period
		} else if from, to, label, first, last, ok := englishPeriod(toks, key, between, i, now); ok {
			c := TimeCue{Kind: TimeAt, Own: [][2]int{span(first, last)}, From: from, To: to, Label: label, Timed: true}
			if k, ok := orderWords[key(first-1)]; ok && k != TimeDuring {
				c.Kind = k
				c.Own[0][0] = toks[first-1].Start
				if key(first-1) == "since" {
					c.Kind = TimeAt // since 2020: as of 2020
				}
			} else if key(first-1) == "to" && key(first-2) == "prior" {
				c.Kind = TimeBefore
				c.Own[0][0] = toks[first-2].Start
			}
			add(c)
			i = last
			continue
		}
		switch {
		case nowWords[w]:
			own := [][2]int{span(i, i)}
			if w == "now" && key(i-1) == "right" {
				own = [][2]int{span(i-1, i)}
			}
			add(TimeCue{Kind: TimeNow, Own: own})
		case w == "nowadays" || w == "these" && key(i+1) == "days":
			add(TimeCue{Kind: TimeNow, Own: [][2]int{span(i, i+1)}})
			i++
		case w == "at" && (key(i+1) == "present" || key(i+1) == "the" && key(i+2) == "moment"):
			j := i + 1
			if key(j) == "the" {
				j = i + 2
			}
			add(TimeCue{Kind: TimeNow, Own: [][2]int{span(i, j)}})
			i = j
		case (w == "used" || w == "use") && key(i+1) == "to" && !passive(key(i-1)):
			add(TimeCue{Kind: TimeAll, Own: [][2]int{span(i, i+1)}})
			i++
		case w == "in" && key(i+1) == "the" && key(i+2) == "past":
			add(TimeCue{Kind: TimeAll, Own: [][2]int{span(i, i+2)}})
			i += 2
		case (w == "over" || w == "through" || w == "throughout") && key(i+1) == "the" && key(i+2) == "years":
			add(TimeCue{Kind: TimeAll, Own: [][2]int{span(i, i+2)}})
			i += 2
		case w == "at" && (key(i+1) == "any" || key(i+1) == "some" || key(i+1) == "one") && (key(i+2) == "point" || key(i+2) == "time"):
			add(TimeCue{Kind: TimeAll, Own: [][2]int{span(i, i+2)}})
			i += 2
		case historyWords[w]:
			if w == "once" && i == 0 {
				continue
			}
			add(TimeCue{Kind: TimeAll, Own: [][2]int{span(i, i)}})
		case auxiliaries[w]:
			// The perfect: "has lived", "have you worked", "'s been".
			for j := i + 1; j < len(toks) && j <= i+4; j++ {
				if p := key(j); p != "" && (strings.HasSuffix(p, "ed") && len(p) > 3 || irregularParticiples[p]) {
					if w == "s" && p != "been" {
						break // "Maria's been"; "Maria's employer" is no perfect
					}
					add(TimeCue{Kind: TimeAll, Own: [][2]int{span(i, i), span(j, j)}, Mask: [][2]int{span(i, i)}})
					break
				}
			}
		}
		if k, ok := orderWords[w]; ok || w == "prior" && key(i+1) == "to" {
			first := i
			if !ok {
				k, i = TimeBefore, i+1
			}
			if w == "when" && first == 0 {
				continue // "when did …" asks for a time
			}
			if _, _, _, _, _, isPeriod := englishPeriod(toks, key, between, i+1, now); isPeriod {
				continue // "before 2022": read with the period
			}
			end := clauseEnd(i)
			if end == i || i+1 >= len(toks) {
				if k == TimeBefore {
					// "lived in Berlin before?": at some earlier time.
					add(TimeCue{Kind: TimeAll, Own: [][2]int{span(first, i)}})
				}
				continue
			}
			c := TimeCue{Kind: k, Own: [][2]int{span(first, i)}, Clause: [2]int{toks[i+1].Start, toks[end].End}}
			for j := i + 1; j <= end; j++ {
				c.Starts = c.Starts || startWords[key(j)]
				c.Ends = c.Ends || endWords[key(j)]
			}
			add(c)
		}
	}
}

// periodWords may start a period ("early 2020", "the 1990s", "last
// year"); besides them, a number and a month's name may.
var periodWords = map[string]bool{
	"early": true, "mid": true, "late": true, "the": true, "last": true, "this": true, "previous": true, "yesterday": true,
}

// otherTriggers are the other words a cue may start with.
var otherTriggers = map[string]bool{
	"right": true, "these": true, "at": true, "used": true, "use": true, "in": true, "over": true, "through": true,
	"throughout": true, "prior": true,
}

// periodStart reports whether a period may start at word w; ago says
// whether the question has the word "ago".
func periodStart(w string, ago bool) bool {
	if w[0] >= '0' && w[0] <= '9' || monthNames[w] != 0 || periodWords[w] {
		return true
	}
	_, n := numberWords[w]
	return n && ago
}

// timeTrigger reports whether a cue may start at word w, so that a
// question without time words costs one map lookup or two a word.
func timeTrigger(w string, ago bool) bool {
	if periodStart(w, ago) || nowWords[w] || historyWords[w] || auxiliaries[w] || otherTriggers[w] {
		return true
	}
	_, order := orderWords[w]
	return order
}

// passive reports whether w before "used to" makes it the passive ("is
// used to write").
func passive(w string) bool {
	switch w {
	case "is", "are", "was", "were", "be", "been", "being", "s", "re":
		return true
	}
	return false
}

// englishPeriod reads an instant or period that starts at token i: a year,
// a month and year, a date, a decade, or a time relative to now. first and
// last are the tokens it covers, with the words before it that belong to
// it.
func englishPeriod(toks []textrule.Unit, key func(int) string, between func(int) string, i int, now time.Time) (from, to time.Time, label string, first, last int, ok bool) {
	y, mo, _ := now.UTC().Date()
	first = i
	// The part of the period: "early", "late 2020", "the end of 2020".
	part := ""
	switch w := key(i); w {
	case "early", "mid", "late":
		part = w
		i++
	case "the":
		if p := key(i + 1); (p == "start" || p == "beginning" || p == "end" || p == "middle") && key(i+2) == "of" {
			part = p
			i += 3
		}
	}
	if part != "" && key(i) == "" {
		return from, to, "", 0, 0, false
	}
	w := key(i)
	last = i
	switch {
	case yearWord(w) > 0 && !(key(i+1) != "" && isDigits(key(i+1)) && strings.TrimSpace(between(i)) == ""):
		yr := yearWord(w)
		mon, day := 0, 0
		// ISO: 2021-03, 2021-03-15, 2021/03.
		if sep := between(i); (sep == "-" || sep == "/") && isDigits(key(i+1)) {
			if m, _ := strconv.Atoi(key(i + 1)); m >= 1 && m <= 12 {
				mon, last = m, i+1
				if sep2 := between(i + 1); sep2 == sep && isDigits(key(i+2)) {
					if d, _ := strconv.Atoi(key(i + 2)); d >= 1 && d <= 31 {
						day, last = d, i+2
					}
				}
			}
		}
		from, to, label = datePeriod(yr, time.Month(mon), day)
	case monthNames[w] != 0:
		m := monthNames[w]
		j := i + 1
		day := 0
		if d := dayWord(key(j)); d > 0 && yearWord(key(j+1)) > 0 {
			day, j = d, j+1
		}
		if key(j) == "of" {
			j++
		}
		yr := yearWord(key(j))
		if yr == 0 {
			return from, to, "", 0, 0, false
		}
		from, to, label = datePeriod(yr, m, day)
		last = j
	case dayWord(w) > 0 && monthNames[key(i+1)] != 0 && yearWord(key(i+2)) > 0:
		from, to, label = datePeriod(yearWord(key(i+2)), monthNames[key(i+1)], dayWord(w))
		last = i + 2
	case decadeWord(w) > 0:
		d := decadeWord(w)
		from = time.Date(d, 1, 1, 0, 0, 0, 0, time.UTC)
		to, label = from.AddDate(10, 0, 0), w
	case (w == "last" || w == "this" || w == "previous") && (key(i+1) == "year" || key(i+1) == "month"):
		off := 0
		if w != "this" {
			off = -1
		}
		if key(i+1) == "year" {
			from, to, label = datePeriod(y+off, 0, 0)
		} else {
			p := time.Date(y, mo+time.Month(off), 1, 0, 0, 0, 0, time.UTC)
			from, to, label = datePeriod(p.Year(), p.Month(), 0)
		}
		last = i + 1
	case w == "the" && key(i+1) == "year" && key(i+2) == "before" && key(i+3) == "last":
		from, to, label = datePeriod(y-2, 0, 0)
		last = i + 3
	case w == "yesterday":
		from, to, label = dayPeriod(now.AddDate(0, 0, -1))
	default:
		// "two years ago", "a couple of months ago", "3 years ago".
		n, j := agoCount(key, i)
		if n == 0 {
			return from, to, "", 0, 0, false
		}
		unit := strings.TrimSuffix(key(j), "s")
		if key(j+1) != "ago" {
			return from, to, "", 0, 0, false
		}
		var at time.Time
		switch unit {
		case "year":
			at = now.AddDate(-n, 0, 0)
		case "decade":
			at = now.AddDate(-10*n, 0, 0)
		case "month":
			at = now.AddDate(0, -n, 0)
		case "week":
			at = now.AddDate(0, 0, -7*n)
		case "day":
			at = now.AddDate(0, 0, -n)
		default:
			return from, to, "", 0, 0, false
		}
		from, to, label = dayPeriod(at)
		last = j + 1
	}
	if from.IsZero() {
		return from, to, "", 0, 0, false
	}
	if part != "" {
		from, to = partOf(from, to, part)
		label = part + " " + label
	}
	// The words before the period that belong to it.
	switch key(first - 1) {
	case "in", "on", "during", "around", "circa", "of":
		if key(first-1) == "of" && key(first-2) != "as" {
			break
		}
		first--
		if key(first) == "of" {
			first--
		}
	case "the":
		first--
		if key(first-1) == "in" || key(first-1) == "during" {
			first--
		}
	}
	return from, to, label, first, last, true
}

// agoCount reads the count of "two years ago" at token i: the number and
// the index of the unit's token.
func agoCount(key func(int) string, i int) (int, int) {
	w := key(i)
	if w == "a" && key(i+1) == "couple" && key(i+2) == "of" {
		return 2, i + 3
	}
	if w == "a" && key(i+1) == "few" {
		return 3, i + 2
	}
	if n, ok := numberWords[w]; ok {
		return n, i + 1
	}
	if isDigits(w) && len(w) <= 3 {
		n, _ := strconv.Atoi(w)
		return n, i + 1
	}
	return 0, i
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// yearWord returns the year a word writes (1000 to 2999), or 0.
func yearWord(w string) int {
	if len(w) != 4 || !isDigits(w) {
		return 0
	}
	y, _ := strconv.Atoi(w)
	if y < 1000 || y > 2999 {
		return 0
	}
	return y
}

// dayWord returns the day of the month a word writes ("15", "15th"), or 0.
func dayWord(w string) int {
	for _, suf := range []string{"st", "nd", "rd", "th"} {
		w = strings.TrimSuffix(w, suf)
	}
	if !isDigits(w) || len(w) > 2 {
		return 0
	}
	d, _ := strconv.Atoi(w)
	if d < 1 || d > 31 {
		return 0
	}
	return d
}

// decadeWord returns the first year of a decade a word writes ("1990s"),
// or 0.
func decadeWord(w string) int {
	if len(w) != 5 || w[4] != 's' || w[3] != '0' {
		return 0
	}
	return yearWord(w[:4])
}

// ResolvePeriod sets the instant a cue of a period or of an order relative
// to a time reads at: the middle of the period, or now when the period
// holds it; just before its start; its end.
func (c *TimeCue) ResolvePeriod(now time.Time) {
	switch c.Kind {
	case TimeBefore:
		c.From, c.Label = c.From.Add(-time.Microsecond), "just before "+c.Label
	case TimeAfter:
		c.From, c.Label = c.To, "after "+c.Label
	default:
		if !now.Before(c.From) && now.Before(c.To) {
			c.From = now
			return
		}
		c.From = c.From.Add(c.To.Sub(c.From) / 2)
	}
}
