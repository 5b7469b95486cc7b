package kgmem

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// This file holds the language knowledge the graph channel uses to read a
// question without a model: a light English stemmer, so that directed,
// director and directs agree, and a small built-in lexicon of the words
// people use for common relations and entity types, in English and Chinese,
// so that "couple" can find a spouse relation and 项目 a "project" type.
// Both are read-only after package initialisation.

// stem returns the light stem of a folded word: for words of the letters
// a–z, inflections and common derivational suffixes are removed
// (directed, director, directs → direct; starring, starred → star;
// nationality → nat, nation → nat; movies, movie → movi); irregular forms
// map to their base (wrote, written → writ; children → child). Other words
// are returned unchanged. The stem is a comparison key, not a word.
func stem(w string) string {
	if len(w) < 3 || !isLowerASCII(w) {
		return w
	}
	if base, ok := irregularForms[w]; ok {
		w = base
	}
	w = stripInflection(w)
	for range 2 {
		next := stripDerivation(w)
		if next == w {
			break
		}
		w = next
	}
	if n := len(w); n >= 4 && w[n-1] == 'e' {
		w = w[:n-1]
	}
	if n := len(w); n >= 4 && w[n-1] == 'y' {
		w = w[:n-1] + "i"
	}
	return undouble(w)
}

func isLowerASCII(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// stripInflection removes a plural ending, then a past or progressive one
// (ratings → rating → rat; released → releas).
func stripInflection(w string) string {
	n := len(w)
	switch {
	case strings.HasSuffix(w, "ies") && n >= 5:
		return w[:n-3] + "i"
	case strings.HasSuffix(w, "sses"):
		w = w[:n-2]
	case strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"):
		if n-2 >= 3 {
			w = w[:n-2]
		}
	case n >= 4 && w[n-1] == 's' && !strings.HasSuffix(w, "ss") &&
		!strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:n-1]
	}
	n = len(w)
	switch {
	case strings.HasSuffix(w, "ied") && n >= 5:
		return w[:n-3] + "i"
	case strings.HasSuffix(w, "ing") && n-3 >= 3:
		return undouble(w[:n-3])
	case strings.HasSuffix(w, "ed") && n-2 >= 3:
		return undouble(w[:n-2])
	case strings.HasSuffix(w, "ed") && n >= 4:
		return w[:n-1] // used → use
	}
	return w
}

// undouble turns a final doubled consonant into one (starr → star), except
// ll, ss and zz, which English keeps in base forms (call, class, jazz).
func undouble(w string) string {
	n := len(w)
	if n >= 4 && w[n-1] == w[n-2] && !strings.ContainsRune("aeioulsz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

// derivations are derivational suffixes, longest first, with the length the
// remaining stem must keep.
var derivations = []struct {
	suffix, with string
	keep         int
}{
	{"ational", "ate", 3}, {"ality", "", 3}, {"ional", "", 3}, {"ation", "ate", 3},
	{"ition", "", 3}, {"ment", "", 4}, {"ness", "", 4}, {"ship", "", 4}, {"hood", "", 4},
	{"ious", "", 3}, {"ence", "", 4}, {"ance", "", 4}, {"ian", "", 4},
	{"ity", "", 4}, {"ion", "", 3}, {"ous", "", 3}, {"ive", "", 4}, {"ist", "", 4},
	{"er", "", 3}, {"or", "", 3}, {"ee", "", 5}, {"al", "", 4},
	{"en", "", 4}, {"ly", "", 4}, {"ic", "", 4},
}

// stripDerivation removes the first derivational suffix that applies.
func stripDerivation(w string) string {
	for _, d := range derivations {
		if strings.HasSuffix(w, d.suffix) && len(w)-len(d.suffix) >= d.keep {
			return undouble(w[:len(w)-len(d.suffix)] + d.with)
		}
	}
	return w
}

// irregularForms maps irregular English forms to a regular base.
var irregularForms = map[string]string{
	"wrote": "write", "written": "write", "writ": "write",
	"children": "child", "men": "man", "women": "woman",
	"made": "make", "did": "do", "done": "do",
	"sang": "sing", "sung": "sing", "spoke": "speak", "spoken": "speak",
	"taught": "teach", "led": "lead", "won": "win", "began": "begin",
	"begun": "begin", "built": "build", "bought": "buy", "sold": "sell",
	"grew": "grow", "grown": "grow", "knew": "know", "known": "know",
	"held": "hold", "ran": "run", "took": "take", "taken": "take",
	"gave": "give", "given": "give", "became": "become", "drove": "drive",
	"driven": "drive", "flew": "fly", "flown": "fly", "chose": "choose",
	"chosen": "choose", "wore": "wear", "worn": "wear", "kept": "keep",
	"met": "meet", "paid": "pay", "said": "say", "sent": "send",
	"spent": "spend", "stood": "stand", "told": "tell", "thought": "think",
	"went": "go", "gone": "go", "wives": "wife", "lives": "live",
	"halves": "half", "shot": "shoot", "found": "found", "felt": "feel",
	"brought": "bring", "caught": "catch", "fought": "fight",
	"drew": "draw", "drawn": "draw", "sought": "seek", "struck": "strike",
	"hid": "hide", "hidden": "hide", "rode": "ride", "ridden": "ride",
	"rose": "rise", "risen": "rise", "fell": "fall", "fallen": "fall",
	"ate": "eat", "eaten": "eat", "died": "die", "dies": "die",
	"dying": "die", "lying": "lie", "ties": "tie", "tied": "tie",
	"movies": "movie", "cookies": "cookie",
}

// A concept is a group of words that name the same relation or entity type;
// its ID is its index in concepts.
type concept struct {
	name string
	// cue marks the concepts of question words (who, when, where) that say
	// what kind of answer is wanted: they match entity types, never
	// relation types.
	cue bool
	en  []string // English words and phrases, any inflection
	zh  []string // Chinese words
}

// concepts is the built-in lexicon: the everyday words for relations and
// types that agent memories and public knowledge bases commonly hold. A
// word may belong to several concepts. It is general on purpose; words for
// a particular graph are registered in a Vocabulary.
var concepts = []concept{
	{name: "person", cue: true,
		en: []string{"who", "whom", "whose", "person", "people", "human", "individual", "someone", "somebody",
			"actor", "actress", "director", "writer", "author", "producer", "composer", "artist", "singer",
			"musician", "player", "founder", "leader", "manager", "member", "employee", "engineer", "scientist",
			"politician", "president", "king", "queen", "ruler", "monarch", "spouse", "wife", "husband", "child",
			"son", "daughter", "parent", "father", "mother", "man", "woman", "boss", "colleague", "staff"},
		zh: []string{"谁", "哪位", "何人", "人", "人物", "人员", "成员", "员工", "演员", "导演", "作者", "编剧", "歌手"}},
	{name: "time", cue: true,
		en: []string{"when", "time", "date", "year", "day", "month", "period", "era", "decade"},
		zh: []string{"什么时候", "何时", "哪年", "哪一年", "时间", "日期", "年份", "年代", "几月"}},
	{name: "place", cue: true,
		en: []string{"where", "place", "location", "city", "town", "country", "region", "area", "state",
			"province", "village", "site", "venue", "whereabouts"},
		zh: []string{"哪里", "哪儿", "在哪", "何处", "什么地方", "地方", "地点", "位置", "城市", "国家", "地区", "省份"}},
	{name: "quantity", cue: true,
		en: []string{"how many", "how much", "number", "count", "amount"},
		zh: []string{"多少", "几个", "数量"}},

	{name: "spouse", en: []string{"spouse", "wife", "husband", "married", "marry", "marriage", "couple",
		"partner", "other half", "darling", "consort", "wed"},
		zh: []string{"配偶", "妻子", "丈夫", "老婆", "老公", "夫人", "结婚", "伴侣", "嫁给", "娶"}},
	{name: "parent", en: []string{"parent", "father", "mother", "dad", "daddy", "mom", "mum", "mommy", "papa", "mama",
		"~child", "~son", "~daughter", "~kid", "~offspring", "~heir", "~descendant", "~baby"},
		zh: []string{"父亲", "母亲", "父母", "爸爸", "妈妈", "双亲", "~孩子", "~儿子", "~女儿", "~子女", "~后代", "~小孩"}},
	{name: "sibling", en: []string{"sibling", "brother", "sister"},
		zh: []string{"兄弟", "姐妹", "哥哥", "弟弟", "姐姐", "妹妹", "兄弟姐妹"}},
	{name: "relative", en: []string{"relative", "family", "kin", "relation"},
		zh: []string{"亲戚", "家人", "亲属", "家庭"}},
	{name: "friend", en: []string{"friend", "buddy", "pal", "acquaintance"},
		zh: []string{"朋友", "好友", "伙伴"}},
	{name: "birth", en: []string{"birth", "born", "birthplace", "birthday", "native", "hometown",
		"come from", "comes from", "came from", "hail from", "originate", "origin"},
		zh: []string{"出生", "生于", "诞生", "出生地", "生日", "出生在", "老家", "籍贯"}},
	{name: "death", en: []string{"death", "die", "dead", "deceased", "pass away", "passed away", "kill"},
		zh: []string{"去世", "逝世", "死亡", "死于", "死因", "过世"}},
	{name: "cause", en: []string{"cause", "reason", "why", "kill"},
		zh: []string{"原因", "为什么", "因为"}},
	{name: "nationality", en: []string{"nationality", "nation", "citizen", "citizenship", "national",
		"come from", "comes from", "came from", "hail from", "origin"},
		zh: []string{"国籍", "公民"}},
	{name: "country", en: []string{"country", "nation", "land", "state"},
		zh: []string{"国家", "国"}},
	{name: "profession", en: []string{"profession", "job", "occupation", "career", "trade", "work",
		"do for a living", "line of business", "line of work", "role", "title", "position", "vocation"},
		zh: []string{"职业", "工作", "职位", "职务", "头衔", "岗位", "角色"}},
	{name: "religion", en: []string{"religion", "religious", "faith", "belief", "believe", "church"},
		zh: []string{"宗教", "信仰", "信奉"}},
	{name: "gender", en: []string{"gender", "sex", "male", "female", "man or a woman", "boy or a girl",
		"man or woman", "masculine", "feminine"},
		zh: []string{"性别", "男", "女", "男性", "女性"}},
	{name: "ethnicity", en: []string{"ethnicity", "ethnic", "race", "ancestry", "heritage"},
		zh: []string{"民族", "种族", "族裔"}},
	{name: "education", en: []string{"institution", "school", "university", "college", "educate", "education",
		"study", "studied", "alma mater", "graduate", "attend", "organization", "organisation"},
		zh: []string{"学校", "大学", "毕业", "就读", "母校", "学院", "教育"}},
	{name: "location", en: []string{"locate", "location", "situate", "based", "base", "site", "lie",
		"headquarter", "headquarters", "seat", "live", "reside", "residence", "resident", "address", "home",
		"dwell", "stay", "settle", "whereabouts"},
		zh: []string{"位于", "坐落", "地点", "位置", "在哪", "哪里", "所在", "总部", "所在地", "住", "居住", "住在",
			"住址", "家", "定居", "住所"}},
	{name: "contain", en: []string{"contain", "include", "comprise", "consist", "encompass", "~part of", "~within",
		"~belong to"},
		zh: []string{"包含", "包括", "下辖", "含有", "组成", "~属于", "~隶属"}},
	{name: "capital", en: []string{"capital"}, zh: []string{"首都", "省会", "首府"}},
	{name: "border", en: []string{"border", "neighbour", "neighbor", "adjacent", "next to", "bordering"},
		zh: []string{"接壤", "邻国", "相邻", "毗邻", "邻近"}},
	{name: "river", en: []string{"river", "flow", "stream", "waterway"},
		zh: []string{"河", "河流", "江", "流经"}},
	{name: "currency", en: []string{"currency", "money", "tender"},
		zh: []string{"货币", "钱", "币"}},
	{name: "language", en: []string{"language", "speak", "spoken", "talk", "tongue", "dialect"},
		zh: []string{"语言", "语种", "说", "讲"}},
	{name: "population", en: []string{"population", "inhabitant", "populous"},
		zh: []string{"人口"}},

	{name: "movie", en: []string{"movie", "film", "picture", "flick", "motion picture", "feature"},
		zh: []string{"电影", "影片", "片子", "作品"}},
	{name: "direct", en: []string{"direct", "director", "directorial", "filmmaker", "helm", "behind the camera",
		"make", "maker"},
		zh: []string{"导演", "执导", "导"}},
	{name: "write", en: []string{"write", "writer", "wrote", "written", "author", "screenwriter", "screenplay",
		"script", "pen", "penned"},
		zh: []string{"编剧", "作者", "写", "撰写", "著", "剧本", "创作"}},
	{name: "act", en: []string{"act", "actor", "actress", "star", "cast", "appear", "perform", "performer",
		"feature", "role", "play", "lead", "costar"},
		zh: []string{"演员", "主演", "出演", "参演", "饰演", "演", "扮演"}},
	{name: "produce", en: []string{"produce", "producer", "production", "finance", "financier", "fund",
		"bankroll", "backer", "put up the money", "put money into", "invest", "investor"},
		zh: []string{"制片", "制片人", "出品", "制作"}},
	{name: "compose", en: []string{"compose", "composer", "composition", "soundtrack", "music", "score"},
		zh: []string{"作曲", "配乐", "音乐", "作曲家"}},
	{name: "genre", en: []string{"genre", "kind", "type", "category", "categorize", "classify", "style", "sort",
		"class"},
		zh: []string{"类型", "类别", "风格", "体裁", "种类", "题材"}},
	{name: "release", en: []string{"release", "come out", "came out", "premiere", "debut", "launch",
		"publish", "issue", "air", "hit theaters", "hit theatres", "hit the screens"},
		zh: []string{"上映", "发行", "发布", "首映", "出版", "问世", "推出"}},
	{name: "topic", en: []string{"tag", "topic", "subject", "about", "describe", "description", "keyword",
		"theme", "concern", "deal with"},
		zh: []string{"标签", "主题", "关于", "关键词", "题材", "讲", "描述"}},
	{name: "rating", en: []string{"rating", "rate", "score", "grade", "review", "critic", "stars", "reception",
		"received"},
		zh: []string{"评分", "打分", "评价", "分数", "评级"}},
	{name: "popularity", en: []string{"popular", "popularity", "famous", "fame", "vote", "well known",
		"renowned", "acclaim", "box office"},
		zh: []string{"人气", "受欢迎", "票数", "投票", "知名", "出名", "有名"}},
	{name: "award", en: []string{"award", "prize", "win", "honor", "honour", "nominate", "nomination"},
		zh: []string{"奖", "奖项", "获奖", "荣誉", "提名"}},

	{name: "book", en: []string{"book", "novel", "publication", "volume"},
		zh: []string{"书", "书籍", "小说", "著作"}},
	{name: "song", en: []string{"song", "track", "recording", "single", "tune"},
		zh: []string{"歌曲", "歌", "单曲", "曲目"}},
	{name: "album", en: []string{"album", "record", "lp", "ep"},
		zh: []string{"专辑", "唱片"}},
	{name: "artist", en: []string{"artist", "singer", "musician", "band", "performer", "vocalist"},
		zh: []string{"歌手", "艺术家", "音乐人", "乐队", "艺人"}},
	{name: "instrument", en: []string{"instrument", "play"},
		zh: []string{"乐器", "演奏"}},
	{name: "label", en: []string{"label", "record label", "record company"},
		zh: []string{"厂牌", "唱片公司"}},
	{name: "version", en: []string{"version", "edition", "release", "variant"},
		zh: []string{"版本", "版"}},
	{name: "license", en: []string{"license", "licence", "licensing"},
		zh: []string{"许可证", "许可", "协议"}},

	{name: "work-on", en: []string{"work", "work on", "involve", "assign", "contribute", "contributor",
		"collaborator", "participate", "handle", "engage", "busy with", "staffed"},
		zh: []string{"负责", "参与", "从事", "投入", "参加", "承担", "做"}},
	{name: "lead", en: []string{"lead", "leader", "head", "manage", "manager", "run", "boss", "supervise", "vp",
		"chief", "president", "director",
		"oversee", "in charge", "responsible", "own", "owner", "chief", "captain"},
		zh: []string{"领导", "负责人", "负责", "管理", "主管", "牵头", "带领", "带队", "主导", "掌管", "老板", "经理"}},
	{name: "report", en: []string{"report", "superior", "supervisor", "boss", "manager", "answer to", "line manager",
		"~direct report", "~subordinate", "~underling", "work under", "works under", "work for",
		"^manage", "^supervise", "^oversee"},
		zh: []string{"汇报", "上级", "上司", "领导", "直属", "报告"}},
	{name: "member", en: []string{"member", "belong", "part of", "join", "participant", "sit in", "on the team",
		"teammate", "colleague", "coworker", "peer"},
		zh: []string{"成员", "属于", "加入", "隶属", "归属", "在"}},
	{name: "use", en: []string{"use", "build on", "built on", "built with", "based on", "adopt", "employ",
		"leverage", "stack", "tech stack", "powered", "run on", "written in", "coded in", "implemented in",
		"built in", "rely"},
		zh: []string{"使用", "采用", "用", "基于", "用到", "技术栈"}},
	{name: "depend", en: []string{"depend", "rely", "dependency", "dependent", "~downstream", "upstream", "require",
		"need", "prerequisite"},
		zh: []string{"依赖", "依靠", "需要", "上游", "~下游", "前置"}},
	{name: "project", en: []string{"project", "initiative", "program", "programme", "product"},
		zh: []string{"项目", "工程", "产品", "计划"}},
	{name: "team", en: []string{"team", "department", "group", "division", "unit", "squad", "org"},
		zh: []string{"团队", "部门", "小组", "组", "部", "队"}},
	{name: "company", en: []string{"company", "organization", "organisation", "firm", "employer", "business",
		"corporation", "enterprise", "startup", "vendor"},
		zh: []string{"公司", "企业", "组织", "机构", "单位", "厂商"}},
	{name: "employ", en: []string{"work", "work for", "work at", "employ", "employee", "employer", "staff",
		"hire", "job at",
		"institution", "organization", "organisation", "workplace"},
		zh: []string{"就职", "任职", "受雇", "员工", "雇员", "上班", "供职"}},
	{name: "customer", en: []string{"customer", "client", "buyer", "account"},
		zh: []string{"客户", "顾客", "买家"}},
	{name: "found", en: []string{"found", "founded", "founder", "establish", "create", "creator", "start",
		"set up", "launch"},
		zh: []string{"创立", "创办", "创始人", "成立", "建立", "创建"}},
	{name: "own", en: []string{"own", "owner", "possess", "hold", "property", "maintain", "maintainer"},
		zh: []string{"拥有", "所有者", "持有", "所有"}},
	{name: "skill", en: []string{"skill", "expertise", "expert", "proficient", "good at", "strong in",
		"strong at", "specialty", "specialize", "competence", "capable"},
		zh: []string{"技能", "擅长", "专长", "会", "精通"}},
	{name: "technology", en: []string{"technology", "tech", "tool", "framework", "library", "platform", "stack"},
		zh: []string{"技术", "框架", "工具", "平台", "库"}},
	{name: "office", en: []string{"office", "headquarters", "hq", "campus", "branch"},
		zh: []string{"办公室", "总部", "办公", "分部", "园区"}},
	{name: "contact", en: []string{"email", "phone", "contact", "mail"},
		zh: []string{"邮箱", "电话", "联系", "联系方式"}},
	{name: "price", en: []string{"price", "cost", "expensive", "cheap"},
		zh: []string{"价格", "价钱", "成本", "费用"}},
	{name: "sequel", en: []string{"~sequel", "prequel", "follow", "predecessor", "~successor", "come before",
		"came before", "~come after", "~came after", "precede", "~next", "previous", "~continuation"},
		zh: []string{"~续集", "前传", "~续作", "~后续"}},
	{name: "mentor", en: []string{"mentor", "~mentee", "~protege", "~protégé", "coach", "guide", "advisor",
		"adviser", "tutor", "~apprentice", "~trainee"},
		zh: []string{"导师", "师傅", "~徒弟", "指导", "带教", "辅导", "~学徒"}},
	{name: "influence", en: []string{"influence", "inspire", "inspiration"},
		zh: []string{"影响", "启发"}},
	{name: "similar", en: []string{"similar", "like", "alike", "related"},
		zh: []string{"类似", "相似", "相关"}},
}

// lexiconIndex finds the concepts of words and phrases.
type lexiconIndex struct {
	// words maps the stem of a one-word English entry to its senses.
	words map[string][]sense
	// phrases maps the stem of the first word of a multi-word English entry
	// to the entries, each a sequence of stems.
	phrases map[string][]lexPhrase
	// zh maps the first rune of a Chinese entry to its entries, longest
	// first.
	zh map[rune][]lexPhrase
}

type lexPhrase struct {
	stems []string // English: the words' stems
	text  string   // Chinese: the word
	sense
}

// sense is a word's membership of a concept. An entry written "~son"
// names the concept's relation the other way round: a son is who a parent
// relation comes from, a father where it goes. An entry written "^manage"
// does so only as a verb (see verbInverse).
type sense struct {
	concept int
	inverse bool
	// verbInverse marks a word that names the relation the other way round
	// when used as a verb ("^manage": who X manages reports to X) but not
	// as a noun (X's manager is whom X reports to); its noun shares its
	// stem, so only the question's syntax tells them apart.
	verbInverse bool
}

// lexicon is the index of concepts, built once.
var lexicon = buildLexicon(concepts)

func buildLexicon(cs []concept) *lexiconIndex {
	x := &lexiconIndex{words: map[string][]sense{}, phrases: map[string][]lexPhrase{}, zh: map[rune][]lexPhrase{}}
	for id, c := range cs {
		for _, e := range c.en {
			sn := sense{concept: id}
			if rest, ok := strings.CutPrefix(e, "~"); ok {
				e, sn.inverse = rest, true
			}
			if rest, ok := strings.CutPrefix(e, "^"); ok {
				e, sn.verbInverse = rest, true
			}
			words := strings.Fields(foldString(e))
			for i, w := range words {
				words[i] = stem(w)
			}
			if len(words) == 1 {
				if !slices.Contains(x.words[words[0]], sn) {
					x.words[words[0]] = append(x.words[words[0]], sn)
				}
				continue
			}
			x.phrases[words[0]] = append(x.phrases[words[0]], lexPhrase{stems: words, sense: sn})
		}
		for _, z := range c.zh {
			sn := sense{concept: id}
			if rest, ok := strings.CutPrefix(z, "~"); ok {
				z, sn.inverse = rest, true
			}
			r, _ := utf8.DecodeRuneInString(z)
			x.zh[r] = append(x.zh[r], lexPhrase{text: z, sense: sn})
		}
	}
	for r, list := range x.zh {
		// Longest first, then in lexicon order, so that matching is
		// deterministic.
		sortStableBy(list, func(a, b lexPhrase) bool { return len(a.text) > len(b.text) })
		x.zh[r] = list
	}
	return x
}

// sortStableBy is an insertion sort: the lexicon's lists are short.
func sortStableBy[T any](s []T, less func(a, b T) bool) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && less(s[j], s[j-1]); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// sensesOf returns the senses of one English word's stem.
func (x *lexiconIndex) sensesOf(stem string) []sense { return x.words[stem] }

// conceptID returns the index of the concept with the given name; the
// lexicon's own code asks only for names it defines.
func conceptID(name string) int {
	for i, c := range concepts {
		if c.name == name {
			return i
		}
	}
	panic("kgmem: lexicon has no concept " + name)
}

// conceptProfession is the concept "what does X do" asks about.
var conceptProfession = conceptID("profession")
