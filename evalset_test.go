package kgmem_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/stretchr/testify/require"
)

// This file builds a synthetic evaluation set generated from a fixed seed
// (math/rand/v2, PCG): the memory an agent might keep about an organisation,
// in English and Chinese, and questions about it whose relevant pages and
// entities are known by construction. TestRetrievalEvaluation (eval_test.go)
// measures MemoryRetriever on it.
//
// The organisation: 120 people (half with English, half with Chinese names,
// some sharing a first or last name), 14 teams, 28 projects (two per team),
// 20 technologies and 8 cities. Typed, weighted relations join them:
//
//	person  -works_on->   project      0.60–0.90
//	person  -leads->      project      0.90–1.00
//	person  -member_of->  team         0.70
//	person  -reports_to-> person       0.80
//	project -part_of->    team         0.80
//	project -uses->       technology   0.50–0.90
//	team    -located_in-> city         0.90
//
// Every fact is placed independently: in both the graph and a page (45%),
// only in the graph (30%: no page states it), or only in a page (25%: the
// relation is missing from the graph, as when extraction missed it). Pages:
// project overviews, architecture notes (project uses technology), status
// notes (person works on project), profiles, HR records (a person without a
// profile has one; it never names the person and shares no words with the
// questions, so only Entity.SourceIDs leads to it), org updates (reports_to),
// office pages (located_in), talk announcements, incident postmortems and
// how-to pages that name no entity, and distractors: weekly digests naming
// several projects, technologies and people, and guides full of the
// questions' vocabulary. Entity.SourceIDs lists every page that names the
// entity (and a person's HR record); Relation.SourceIDs the page that
// states the relation.
//
// Relevance is graded: 2 for an item that answers the question (an entity
// that is the answer, a page that states the answering fact, the profile or
// HR record of the person asked about), 1 for supporting items (the entity
// the question names, its other pages, the intermediate entities of a
// two-hop answer). A query is kept only when it has between 1 and 10
// relevant items, so recall@10 can reach 1.

// evalSet is the generated memory and its questions.
type evalSet struct {
	Pages     []kgmem.KnowledgePage
	Entities  []kgmem.Entity
	Relations []kgmem.Relation
	Queries   []evalQuery
	// Mentions lists, for each page ID, the entity IDs the page names.
	Mentions map[string][]string
}

// evalQuery is one question with its relevance judgements.
type evalQuery struct {
	Text string
	Kind string // see evalKinds
	Lang string // "en" or "zh"
	// Subject is the entity the question names, "" when it names none.
	Subject string
	// Relevant maps "page:ID" and "entity:ID" to a grade: 2 answers the
	// question, 1 supports the answer.
	Relevant map[string]int
}

// evalKinds are the query kinds, with what answers them.
var evalKinds = []struct{ Name, About string }{
	{"who-works-on", "people on a named project (1 hop)"},
	{"person-projects", "projects of a named person (1 hop)"},
	{"project-lead", "lead of a named project (1 hop)"},
	{"reports-to", "direct reports of a named person (1 hop)"},
	{"tech-projects", "projects using a named technology (1 hop)"},
	{"team-tech", "technologies of a named team's projects (2 hops)"},
	{"person-city", "city of a named person's team (2 hops)"},
	{"about-person", "a named person's pages, incl. HR records (provenance)"},
	{"talk-topic", "text-only fact, no entity named"},
	{"incident", "keyword lookup, no entity named"},
	{"howto", "keyword lookup, no entity named"},
}

// The generator's parameters.
const (
	evalSeedHi, evalSeedLo = 0x6b676d656d, 2024
	evalMaxRelevant        = 10
)

// placement says where a fact lives.
type placement uint8

const (
	inBoth placement = iota
	graphOnly
	textOnly
)

func (p placement) graph() bool { return p != textOnly }
func (p placement) text() bool  { return p != graphOnly }
func (p placement) both() bool  { return p == inBoth }

type esCity struct{ id, name, alias string }

type esTeam struct {
	id, name, alias string
	city            int
	cityPlace       placement
	projects        []int
	members         []int
}

type esTech struct {
	id, name, alias, purpose, purposeZH string
	projects                            []int // users, at most 4
}

type esUse struct {
	tech  int
	place placement
	page  string
}

type esProject struct {
	id, name, alias, domain string
	zh                      bool
	team                    int
	teamPlace               placement
	lead                    int
	leadPlace               placement
	members                 []esMember // works_on, lead excluded
	uses                    []esUse
	overview                string
}

type esMember struct {
	person int
	place  placement
	page   string
}

type esPerson struct {
	id, name    string
	zh          bool
	team        int
	teamPlace   placement
	role        string
	profile, hr string // page IDs; exactly one is set
	cityInText  bool   // the profile states the team's city
	manager     int    // -1: none
	mgrPlace    placement
	projects    []int // works_on
	leads       []int
}

// evalBuilder holds the generator's state.
type evalBuilder struct {
	rng      *rand.Rand
	cities   []esCity
	teams    []esTeam
	techs    []esTech
	projects []esProject
	people   []esPerson
	set      *evalSet
	sources  map[string][]string          // entity ID → page IDs, in page order
	relSrc   map[kgmem.RelationKey]string // relation → the page stating it
	pageNum  int
	// textQueries are the questions about pages that name no entity.
	textQueries []esTextQuery
}

// newEvalSet generates the evaluation set. It is deterministic: every call
// returns the same set.
func newEvalSet() *evalSet {
	b := &evalBuilder{
		rng:     rand.New(rand.NewPCG(evalSeedHi, evalSeedLo)),
		set:     &evalSet{Mentions: map[string][]string{}},
		sources: map[string][]string{},
		relSrc:  map[kgmem.RelationKey]string{},
	}
	b.makeEntities()
	b.makeFacts()
	b.makePages()
	b.makeGraph()
	b.makeQueries()
	return b.set
}

func (b *evalBuilder) place() placement {
	switch x := b.rng.Float64(); {
	case x < 0.45:
		return inBoth
	case x < 0.75:
		return graphOnly
	}
	return textOnly
}

func (b *evalBuilder) weight(lo, hi float64) float64 {
	return float64(int(100*(lo+(hi-lo)*b.rng.Float64())+0.5)) / 100
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func (b *evalBuilder) date() string {
	return fmt.Sprintf("2024-%02d-%02d", 1+b.rng.IntN(12), 1+b.rng.IntN(28))
}

var (
	esCityNames = [][2]string{
		{"Beijing", "北京"}, {"Shanghai", "上海"}, {"Shenzhen", "深圳"}, {"Hangzhou", "杭州"},
		{"Berlin", "柏林"}, {"London", "伦敦"}, {"Singapore", "新加坡"}, {"Seattle", "西雅图"},
	}
	esTeamNames = [][2]string{
		{"Infrastructure Team", "基础架构组"}, {"Payments Team", "支付组"}, {"Search Team", "搜索组"},
		{"Data Platform Team", "数据平台组"}, {"Mobile Team", "移动端组"}, {"Security Team", "安全组"},
		{"Growth Team", "增长组"}, {"Machine Learning Team", "机器学习组"}, {"Storage Team", "存储组"},
		{"Observability Team", "可观测性组"}, {"Developer Tools Team", "开发工具组"},
		{"Billing Team", "计费组"}, {"Messaging Team", "消息组"}, {"Identity Team", "身份认证组"},
	}
	// name, alias, purpose, purpose in Chinese
	esTechNames = [][4]string{
		{"Go", "Golang", "the API servers", "接口服务"},
		{"Rust", "", "the hot paths", "性能关键路径"},
		{"Java", "", "the batch jobs", "批处理任务"},
		{"Python", "", "the data tooling", "数据工具"},
		{"Kubernetes", "K8s", "deployment", "部署编排"},
		{"PostgreSQL", "Postgres", "the primary database", "主数据库"},
		{"MySQL", "", "the order tables", "订单表存储"},
		{"Redis", "", "caching", "缓存"},
		{"Kafka", "", "event streaming", "事件流"},
		{"Flink", "", "stream processing", "流式计算"},
		{"Spark", "", "offline analytics", "离线分析"},
		{"Elasticsearch", "", "full-text search", "全文检索"},
		{"ClickHouse", "", "the metrics warehouse", "指标仓库"},
		{"gRPC", "", "service calls", "服务间调用"},
		{"React", "", "the web console", "前端控制台"},
		{"TensorFlow", "", "model training", "模型训练"},
		{"Prometheus", "", "monitoring", "监控告警"},
		{"Envoy", "", "the service mesh", "服务网格"},
		{"etcd", "", "configuration", "配置管理"},
		{"RocksDB", "", "the embedded storage", "嵌入式存储"},
	}
	esProjectsEN = []string{
		"Apollo", "Hermes", "Atlas", "Orion", "Phoenix", "Nova", "Titan",
		"Zephyr", "Vega", "Helix", "Aurora", "Falcon", "Mercury", "Polaris",
	}
	esProjectsZH = []string{
		"星河", "天枢", "鲲鹏", "北斗", "磐石", "灵犀", "青云",
		"长风", "烛龙", "羲和", "玄武", "昆仑", "扶摇", "启航",
	}
	esDomainsEN = []string{
		"the payment routing platform", "the search ranking service", "the log analytics pipeline",
		"the mobile release toolkit", "the fraud detection engine", "the recommendation service",
		"the object storage gateway", "the notification platform", "the access control service",
		"the experimentation platform", "the invoice pipeline", "the chat backend",
		"the build farm", "the metrics platform",
	}
	esDomainsZH = []string{
		"支付路由平台", "搜索排序服务", "日志分析管道", "移动发布工具链", "风控引擎", "推荐服务",
		"对象存储网关", "消息通知平台", "权限控制服务", "实验平台", "发票处理管道", "聊天后端",
		"构建集群", "指标平台",
	}
	esFirstEN = []string{
		"Alice", "Bob", "Carol", "David", "Emma", "Frank", "Grace", "Henry", "Irene", "Jack",
		"Karen", "Leo", "Maria", "Nathan", "Olivia", "Peter", "Rachel", "Samuel", "Tina", "Victor",
	}
	esLastEN = []string{
		"Chen", "Smith", "Garcia", "Nguyen", "Patel", "Johnson", "Rossi", "Tanaka", "Silva", "Novak",
	}
	esSurnamesZH = []string{"张", "王", "李", "赵", "刘", "陈", "杨", "黄", "周", "吴"}
	esGivenZH    = []string{
		"伟", "伟明", "芳", "娜", "敏", "静", "磊", "洋", "勇", "艳",
		"杰", "强", "军", "涛", "秀英", "志强", "建华", "海燕", "晓东", "丽",
	}
	esRolesEN = []string{"software engineer", "senior engineer", "engineering manager", "site reliability engineer", "data engineer", "product manager"}
	esRolesZH = []string{"软件工程师", "高级工程师", "技术经理", "运维工程师", "数据工程师", "产品经理"}
)

func (b *evalBuilder) makeEntities() {
	for _, c := range esCityNames {
		b.cities = append(b.cities, esCity{id: "city:" + strings.ToLower(c[0]), name: c[0], alias: c[1]})
	}
	for _, t := range esTeamNames {
		id := "team:" + strings.ToLower(strings.ReplaceAll(strings.TrimSuffix(t[0], " Team"), " ", "-"))
		b.teams = append(b.teams, esTeam{id: id, name: t[0], alias: t[1], city: b.rng.IntN(len(b.cities))})
	}
	for _, t := range esTechNames {
		b.techs = append(b.techs, esTech{id: "tech:" + strings.ToLower(t[0]), name: t[0], alias: t[1], purpose: t[2], purposeZH: t[3]})
	}
	for i, n := range esProjectsEN {
		b.projects = append(b.projects, esProject{id: "project:" + strings.ToLower(n), name: "Project " + n, alias: n, domain: esDomainsEN[i]})
	}
	for i, n := range esProjectsZH {
		b.projects = append(b.projects, esProject{id: fmt.Sprintf("project:zh%02d", i+1), name: n + "计划", alias: n, domain: esDomainsZH[i], zh: true})
	}
	// People: 60 distinct English names and 60 distinct Chinese names.
	seen := map[string]bool{}
	for len(b.people) < 60 {
		n := pick(b.rng, esFirstEN) + " " + pick(b.rng, esLastEN)
		if !seen[n] {
			seen[n] = true
			b.people = append(b.people, esPerson{name: n})
		}
	}
	for len(b.people) < 120 {
		n := pick(b.rng, esSurnamesZH) + pick(b.rng, esGivenZH)
		if !seen[n] {
			seen[n] = true
			b.people = append(b.people, esPerson{name: n, zh: true})
		}
	}
	for i := range b.people {
		b.people[i].id = fmt.Sprintf("person:%03d", i+1)
		b.people[i].manager = -1
	}
}

func (b *evalBuilder) makeFacts() {
	r := b.rng
	// Two projects per team, people round-robin over shuffled teams.
	order := r.Perm(len(b.projects))
	for i, p := range order {
		t := i / 2
		b.projects[p].team = t
		b.projects[p].teamPlace = b.place()
		b.teams[t].projects = append(b.teams[t].projects, p)
	}
	for k, p := range r.Perm(len(b.people)) {
		t := k % len(b.teams)
		b.teams[t].members = append(b.teams[t].members, p)
		b.people[p].team = t
	}
	for t := range b.teams {
		b.teams[t].cityPlace = b.place()
	}
	// Profiles for 60% of people; the others have an HR record only.
	for i := range b.people {
		p := &b.people[i]
		if p.zh {
			p.role = pick(r, esRolesZH)
		} else {
			p.role = pick(r, esRolesEN)
		}
		if r.Float64() < 0.6 {
			p.profile = "profile-" + p.id[len("person:"):]
			p.teamPlace = b.place()
			p.cityInText = r.IntN(2) == 0
		} else {
			p.hr = "hr-" + p.id[len("person:"):]
			p.teamPlace = graphOnly
		}
	}
	// Two managers per team lead its two projects; the second reports to
	// the first, the other members are split between them.
	for t := range b.teams {
		tm := &b.teams[t]
		m1, m2 := tm.members[0], tm.members[1]
		for k, p := range tm.projects {
			lead := []int{m1, m2}[k]
			b.projects[p].lead = lead
			b.projects[p].leadPlace = b.place()
			b.people[lead].leads = append(b.people[lead].leads, p)
		}
		b.report(m2, m1)
		others := tm.members[2:]
		for k, p := range others {
			if k < len(others)/2 {
				b.report(p, m1)
			} else {
				b.report(p, m2)
			}
		}
	}
	// Members: 1–3 per project besides the lead, mostly from its team,
	// at most two projects per person.
	for p := range b.projects {
		prj := &b.projects[p]
		want := 1 + r.IntN(3)
		pool := slices.Clone(b.teams[prj.team].members[2:])
		if r.Float64() < 0.3 {
			pool = append(pool, r.IntN(len(b.people))) // someone from another team
		}
		r.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
		for _, q := range pool {
			if len(prj.members) == want {
				break
			}
			per := &b.people[q]
			if len(per.projects)+len(per.leads) >= 2 || slices.Contains(per.projects, p) || prj.lead == q {
				continue
			}
			per.projects = append(per.projects, p)
			prj.members = append(prj.members, esMember{person: q, place: b.place()})
		}
		// 2–3 technologies, each used by at most 4 projects.
		ntech := 2 + r.IntN(2)
		for _, k := range r.Perm(len(b.techs)) {
			if len(prj.uses) == ntech {
				break
			}
			if len(b.techs[k].projects) >= 4 {
				continue
			}
			b.techs[k].projects = append(b.techs[k].projects, p)
			prj.uses = append(prj.uses, esUse{tech: k, place: b.place()})
		}
	}
}

func (b *evalBuilder) report(p, m int) {
	b.people[p].manager = m
	b.people[p].mgrPlace = b.place()
}

// addPage stores a page naming the given entities.
func (b *evalBuilder) addPage(id, title, content string, names ...string) {
	b.set.Pages = append(b.set.Pages, kgmem.KnowledgePage{ID: id, Title: title, Content: content})
	for _, n := range names {
		if !slices.Contains(b.sources[n], id) {
			b.sources[n] = append(b.sources[n], id)
		}
	}
	b.set.Mentions[id] = slices.Compact(slices.Sorted(slices.Values(names)))
}

func (b *evalBuilder) nextID(prefix string) string {
	b.pageNum++
	return fmt.Sprintf("%s-%03d", prefix, b.pageNum)
}

// zhMode reports whether a page about something Chinese (zh) or English is
// written in Chinese: mostly in the same language, but a fifth of pages
// switch, as mixed teams write.
func (b *evalBuilder) zhMode(zh bool) bool {
	if b.rng.Float64() < 0.2 {
		return !zh
	}
	return zh
}

func (b *evalBuilder) makePages() {
	r := b.rng
	// Project overviews.
	for p := range b.projects {
		prj := &b.projects[p]
		team, lead := &b.teams[prj.team], &b.people[prj.lead]
		prj.overview = "overview-" + strings.TrimPrefix(prj.id, "project:")
		names := []string{prj.id}
		var c strings.Builder
		if prj.zh {
			fmt.Fprintf(&c, "%s是%s", prj.name, prj.domain)
			if prj.teamPlace.text() {
				fmt.Fprintf(&c, "，隶属于%s", team.alias)
				names = append(names, team.id)
			}
			c.WriteString("。")
			if prj.leadPlace.text() {
				fmt.Fprintf(&c, "项目负责人：%s。", lead.name)
				names = append(names, lead.id)
			}
			c.WriteString(pick(r, []string{"下季度重点是稳定性与成本。", "本年度目标是完成全部迁移。", "近期在准备大促保障。"}))
		} else {
			fmt.Fprintf(&c, "%s is %s", prj.name, prj.domain)
			if prj.teamPlace.text() {
				fmt.Fprintf(&c, " of the %s", team.name)
				names = append(names, team.id)
			}
			c.WriteString(". ")
			if prj.leadPlace.text() {
				fmt.Fprintf(&c, "%s leads the project. ", lead.name)
				names = append(names, lead.id)
			}
			c.WriteString(pick(r, []string{"The roadmap for next quarter focuses on reliability and cost.", "This year's goal is to finish the migration.", "The current milestone is the public beta."}))
		}
		b.addPage(prj.overview, prj.name, c.String(), names...)
	}
	// Architecture notes: project uses technology.
	for p := range b.projects {
		prj := &b.projects[p]
		for k := range prj.uses {
			u := &prj.uses[k]
			if !u.place.text() {
				continue
			}
			tech := &b.techs[u.tech]
			u.page = b.nextID("arch")
			if b.zhMode(prj.zh) {
				b.addPage(u.page, prj.name+"架构说明", fmt.Sprintf("%s使用 %s 做%s。", prj.name, tech.name, tech.purposeZH), prj.id, tech.id)
			} else {
				b.addPage(u.page, "Architecture note: "+prj.name, fmt.Sprintf("%s uses %s for %s.", prj.name, tech.name, tech.purpose), prj.id, tech.id)
			}
		}
	}
	// Status notes: person works on project.
	actionsEN := []string{"finished the API migration", "fixed the flaky integration tests", "reviewed the rollout plan", "wrote the capacity report", "shipped the new dashboard"}
	actionsZH := []string{"完成了接口迁移", "修复了集成测试", "评审了上线方案", "撰写了容量报告", "上线了新看板"}
	for p := range b.projects {
		prj := &b.projects[p]
		for k := range prj.members {
			m := &prj.members[k]
			if !m.place.text() {
				continue
			}
			per := &b.people[m.person]
			m.page = b.nextID("status")
			d := b.date()
			if b.zhMode(prj.zh) {
				b.addPage(m.page, "周报 "+d, fmt.Sprintf("%s本周在%s中%s。", per.name, prj.name, pick(r, actionsZH)), per.id, prj.id)
			} else {
				b.addPage(m.page, "Status update "+d, fmt.Sprintf("%s %s for %s.", per.name, pick(r, actionsEN), prj.name), per.id, prj.id)
			}
		}
	}
	// Profiles and HR records.
	for i := range b.people {
		per := &b.people[i]
		team := &b.teams[per.team]
		city := &b.cities[team.city]
		if per.hr != "" {
			num := 1000 + i*7
			if per.zh {
				b.addPage(per.hr, fmt.Sprintf("人事档案 %d", num), fmt.Sprintf("入职日期 %s。工牌与电脑已发放。职级 L%d。紧急联系人已登记。", b.date(), 3+r.IntN(5)))
			} else {
				b.addPage(per.hr, fmt.Sprintf("Personnel file %d", num), fmt.Sprintf("Start date %s. Badge and laptop issued. Payroll grade L%d. Emergency contact on file.", b.date(), 3+r.IntN(5)))
			}
			b.sources[per.id] = append(b.sources[per.id], per.hr)
			continue
		}
		names := []string{per.id}
		var c strings.Builder
		if per.zh {
			if per.teamPlace.text() {
				fmt.Fprintf(&c, "%s是%s的%s", per.name, team.alias, per.role)
				names = append(names, team.id)
			} else {
				fmt.Fprintf(&c, "%s是一名%s", per.name, per.role)
			}
			if per.cityInText {
				fmt.Fprintf(&c, "，常驻%s", city.alias)
				names = append(names, city.id)
			}
			c.WriteString("。")
			c.WriteString(pick(r, []string{"喜欢带新人。", "业余时间跑马拉松。", "写过很多内部文档。"}))
		} else {
			fmt.Fprintf(&c, "%s is a %s", per.name, per.role)
			if per.teamPlace.text() {
				fmt.Fprintf(&c, " in the %s", team.name)
				names = append(names, team.id)
			}
			if per.cityInText {
				fmt.Fprintf(&c, ", based in %s", city.name)
				names = append(names, city.id)
			}
			c.WriteString(". ")
			c.WriteString(pick(r, []string{"Enjoys mentoring new hires.", "Runs marathons on weekends.", "Has written many internal docs."}))
		}
		b.addPage(per.profile, per.name, c.String(), names...)
	}
	// Org updates: person reports to person.
	for i := range b.people {
		per := &b.people[i]
		if per.manager < 0 || !per.mgrPlace.text() {
			continue
		}
		mgr := &b.people[per.manager]
		id := b.nextID("org")
		d := b.date()
		if b.zhMode(per.zh) {
			b.addPage(id, "组织调整 "+d, fmt.Sprintf("%s现向%s汇报。", per.name, mgr.name), per.id, mgr.id)
		} else {
			b.addPage(id, "Org update "+d, fmt.Sprintf("%s now reports to %s.", per.name, mgr.name), per.id, mgr.id)
		}
		b.relSrc[kgmem.RelationKey{SourceID: per.id, TargetID: mgr.id, Type: "reports_to"}] = id
	}
	// Office pages: team located in city.
	for t := range b.teams {
		tm := &b.teams[t]
		if !tm.cityPlace.text() {
			continue
		}
		city := &b.cities[tm.city]
		id := "office-" + strings.TrimPrefix(tm.id, "team:")
		if b.zhMode(r.IntN(2) == 0) {
			b.addPage(id, tm.alias+"办公地点", fmt.Sprintf("%s在%s办公。", tm.alias, city.alias), tm.id, city.id)
		} else {
			b.addPage(id, tm.name+" office", fmt.Sprintf("The %s works from the %s office.", tm.name, city.name), tm.id, city.id)
		}
		b.relSrc[kgmem.RelationKey{SourceID: tm.id, TargetID: city.id, Type: "located_in"}] = id
	}
	b.makeTextPages()
	b.makeDistractors()
	for _, prj := range b.projects {
		if prj.teamPlace.both() {
			b.relSrc[kgmem.RelationKey{SourceID: prj.id, TargetID: b.teams[prj.team].id, Type: "part_of"}] = prj.overview
		}
		if prj.leadPlace.both() {
			b.relSrc[kgmem.RelationKey{SourceID: b.people[prj.lead].id, TargetID: prj.id, Type: "leads"}] = prj.overview
		}
		for _, m := range prj.members {
			b.relSrc[kgmem.RelationKey{SourceID: b.people[m.person].id, TargetID: prj.id, Type: "works_on"}] = m.page
		}
		for _, u := range prj.uses {
			b.relSrc[kgmem.RelationKey{SourceID: prj.id, TargetID: b.techs[u.tech].id, Type: "uses"}] = u.page
		}
	}
	for _, per := range b.people {
		if per.profile != "" && per.teamPlace.both() {
			b.relSrc[kgmem.RelationKey{SourceID: per.id, TargetID: b.teams[per.team].id, Type: "member_of"}] = per.profile
		}
	}
}

// Text-only material: talks, incident postmortems, how-to pages.
var (
	esTalkTopicsEN = []string{
		"chaos engineering", "zero-downtime schema changes", "property-based testing", "tail latency",
		"on-call burnout", "vector databases", "supply chain security", "cost-aware autoscaling",
		"feature flag hygiene", "structured logging", "WebAssembly plugins", "distributed tracing sampling",
		"carbon-aware scheduling", "fuzzing parsers", "writing design docs",
	}
	esTalkTopicsZH = []string{
		"混沌工程实践", "灰度发布策略", "代码评审文化", "容量规划方法", "大模型推理加速",
		"数据血缘治理", "前端性能优化", "内存分配器原理", "多活架构设计", "测试左移",
		"告警降噪", "成本优化经验", "故障演练", "低代码平台", "隐私计算",
	}
	esSystemsEN  = []string{"checkout service", "notification service", "search indexer", "auth gateway", "report generator", "image pipeline", "sync worker", "ledger service"}
	esSymptomsEN = []string{"latency spike", "memory leak", "connection pool exhaustion", "disk full alert", "certificate expiry", "deadlock", "retry storm", "clock skew", "cache stampede", "slow query backlog"}
	esCausesEN   = []string{"misconfigured timeout", "stale DNS cache", "unbounded queue", "missing index", "expired credentials", "noisy neighbour", "log rotation failure", "leaked file descriptors"}
	esFixesEN    = []string{"raised the limit", "added a circuit breaker", "rolled back the release", "rotated the keys", "added the index", "pinned the dependency version"}
	esSystemsZH  = []string{"订单服务", "计费服务", "消息推送", "搜索索引", "登录网关", "报表系统"}
	esSymptomsZH = []string{"延迟飙升", "内存泄漏", "连接池耗尽", "磁盘写满", "证书过期", "死锁", "重试风暴", "时钟漂移"}
	esCausesZH   = []string{"超时配置错误", "域名缓存过期", "队列没有上限", "缺少索引", "凭证过期", "日志轮转失败"}
	esFixesZH    = []string{"调大了上限", "增加了熔断", "回滚了版本", "轮换了密钥", "补上了索引"}
	esHowtoEN    = []string{
		"rotate database credentials", "request production access", "book a meeting room", "set up the VPN",
		"file an expense report", "reset two-factor authentication", "request a new laptop",
		"publish an internal package", "add a dashboard panel", "run the load test suite",
		"renew a TLS certificate", "archive a repository", "enable debug logging",
		"create a feature flag", "schedule a database migration",
	}
	esHowtoZH = []string{
		"申请生产权限", "配置VPN", "报销差旅费用", "重置双因素认证", "申请新电脑",
		"发布内部依赖包", "创建功能开关", "预订会议室", "轮换数据库密码", "开启调试日志",
	}
)

// esTextQuery is a question about one page that names no entity.
type esTextQuery struct {
	kind, lang, text, page string
}

func (b *evalBuilder) makeTextPages() {
	r := b.rng
	var tq []esTextQuery
	// Talks: the page names the speaker, the graph knows nothing of talks.
	for i, topic := range esTalkTopicsEN {
		per := &b.people[r.IntN(len(b.people))]
		id := fmt.Sprintf("talk-en-%02d", i+1)
		b.addPage(id, "All-hands talk: "+topic, fmt.Sprintf("%s gave a talk on %s at the engineering all-hands.", per.name, topic), per.id)
		tq = append(tq, esTextQuery{"talk-topic", "en", pick(r, []string{"Who gave the talk on %s?", "talk about %s", "Which all-hands talk covered %s?"}), id})
		tq[len(tq)-1].text = fmt.Sprintf(tq[len(tq)-1].text, topic)
	}
	for i, topic := range esTalkTopicsZH {
		per := &b.people[r.IntN(len(b.people))]
		id := fmt.Sprintf("talk-zh-%02d", i+1)
		b.addPage(id, "技术分享："+topic, fmt.Sprintf("%s在技术分享会上做了关于%s的分享。", per.name, topic), per.id)
		tq = append(tq, esTextQuery{"talk-topic", "zh", fmt.Sprintf(pick(r, []string{"谁做了关于%s的分享？", "%s的分享是谁讲的？"}), topic), id})
	}
	// Incident postmortems: each (symptom, cause) pair once, so the pair
	// identifies the page while systems, symptoms and causes recur.
	type combo struct{ a, b int }
	used := map[combo]bool{}
	for i := 0; i < 30; i++ {
		sy, sm, ca, fx := r.IntN(len(esSystemsEN)), r.IntN(len(esSymptomsEN)), r.IntN(len(esCausesEN)), r.IntN(len(esFixesEN))
		if used[combo{sm, ca}] {
			i--
			continue
		}
		used[combo{sm, ca}] = true
		id := fmt.Sprintf("incident-en-%02d", i+1)
		b.addPage(id, fmt.Sprintf("Postmortem: %s in the %s", esSymptomsEN[sm], esSystemsEN[sy]),
			fmt.Sprintf("On %s the %s had a %s. Root cause: %s. Fix: we %s.", b.date(), esSystemsEN[sy], esSymptomsEN[sm], esCausesEN[ca], esFixesEN[fx]))
		tmpl := pick(r, []string{"%s caused by %s", "postmortem %s %s", "why did we have a %s? %s"})
		tq = append(tq, esTextQuery{"incident", "en", fmt.Sprintf(tmpl, esSymptomsEN[sm], esCausesEN[ca]), id})
	}
	clear(used)
	for i := 0; i < 20; i++ {
		sy, sm, ca, fx := r.IntN(len(esSystemsZH)), r.IntN(len(esSymptomsZH)), r.IntN(len(esCausesZH)), r.IntN(len(esFixesZH))
		if used[combo{sm, ca}] {
			i--
			continue
		}
		used[combo{sm, ca}] = true
		id := fmt.Sprintf("incident-zh-%02d", i+1)
		b.addPage(id, fmt.Sprintf("故障复盘：%s%s", esSystemsZH[sy], esSymptomsZH[sm]),
			fmt.Sprintf("%s，%s出现%s。根因：%s。处理：%s。", b.date(), esSystemsZH[sy], esSymptomsZH[sm], esCausesZH[ca], esFixesZH[fx]))
		tmpl := pick(r, []string{"%s，根因是%s", "%s %s 复盘", "为什么会%s？%s"})
		tq = append(tq, esTextQuery{"incident", "zh", fmt.Sprintf(tmpl, esSymptomsZH[sm], esCausesZH[ca]), id})
	}
	// How-to pages share their steps' vocabulary.
	stepsEN := []string{
		"Open a ticket in the service desk and ask your manager to approve it.",
		"Follow the checklist in the platform handbook, then confirm in the team channel.",
		"Use the self-service portal; approval usually takes one day.",
	}
	stepsZH := []string{"先在工单系统提交申请，再由主管审批。", "按平台手册的检查清单操作，完成后在群里确认。", "使用自助门户办理，审批一般需要一天。"}
	for i, task := range esHowtoEN {
		id := fmt.Sprintf("howto-en-%02d", i+1)
		b.addPage(id, "How to "+task, fmt.Sprintf("To %s: %s", task, pick(r, stepsEN)))
		tq = append(tq, esTextQuery{"howto", "en", fmt.Sprintf(pick(r, []string{"how do I %s", "steps to %s", "How can I %s?"}), task), id})
	}
	for i, task := range esHowtoZH {
		id := fmt.Sprintf("howto-zh-%02d", i+1)
		b.addPage(id, "如何"+task, fmt.Sprintf("%s的步骤：%s", task, pick(r, stepsZH)))
		tq = append(tq, esTextQuery{"howto", "zh", fmt.Sprintf(pick(r, []string{"怎么%s？", "%s的流程"}), task), id})
	}
	b.textQueries = tq
}

// makeDistractors adds pages that share the questions' vocabulary and name
// entities without stating any fact the questions ask about.
func (b *evalBuilder) makeDistractors() {
	r := b.rng
	for i := 0; i < 25; i++ {
		ps := r.Perm(len(b.projects))[:3]
		tech := &b.techs[r.IntN(len(b.techs))]
		per := &b.people[r.IntN(len(b.people))]
		p1, p2, p3 := &b.projects[ps[0]], &b.projects[ps[1]], &b.projects[ps[2]]
		id := fmt.Sprintf("digest-%02d", i+1)
		if r.IntN(2) == 0 {
			b.addPage(id, fmt.Sprintf("周报汇总 第%d期", i+1),
				fmt.Sprintf("%s、%s和%s发布了版本说明；%s 升级窗口改到周五；%s加入了值班轮换。", p1.name, p2.name, p3.name, tech.name, per.name),
				p1.id, p2.id, p3.id, tech.id, per.id)
		} else {
			b.addPage(id, fmt.Sprintf("Weekly digest #%d", i+1),
				fmt.Sprintf("Release notes were published for %s, %s and %s; the %s upgrade window moved to Friday; %s joined the on-call rotation.", p1.name, p2.name, p3.name, tech.name, per.name),
				p1.id, p2.id, p3.id, tech.id, per.id)
		}
	}
	guides := [][2]string{
		{"Guide: how project teams work", "Every project has a lead and a few people who work on it. Each team reports status weekly and decides which technologies its projects use."},
		{"Guide: who to ask", "If you do not know who leads a project or who works on it, ask the team lead. People report to their manager, who knows the projects."},
		{"Guide: offices", "Each team is based in a city office. People who work from another city tell their team which office they are based in."},
		{"Guide: choosing technologies", "Which technologies a project uses is decided by the team that builds it; shared tools are listed in the tech radar."},
		{"Guide: onboarding", "New people join a team, meet their manager and the people they will work with, and get to know the projects and the tech stack."},
		{"项目管理指南", "每个项目都有负责人和若干成员，团队每周汇报进度，并自行决定项目使用哪些技术。"},
		{"组织架构说明", "每个人都向自己的主管汇报；不清楚谁负责哪个项目时，可以问团队负责人。"},
		{"办公指南", "每个团队都在某个城市办公；在其他城市工作的同事需要告诉团队自己在哪里办公。"},
		{"技术选型规范", "项目用哪些技术由团队决定，公共技术栈记录在技术雷达中。"},
		{"新人入职指南", "新同事加入团队后，会认识主管和一起做项目的成员，并熟悉项目和技术栈。"},
	}
	for i, gd := range guides {
		b.addPage(fmt.Sprintf("guide-%02d", i+1), gd[0], gd[1])
	}
}

func (b *evalBuilder) makeGraph() {
	s := b.set
	add := func(e kgmem.Entity) {
		e.SourceIDs = b.sources[e.ID]
		s.Entities = append(s.Entities, e)
	}
	for _, c := range b.cities {
		add(kgmem.Entity{ID: c.id, Name: c.name, Type: "city", Aliases: []string{c.alias}})
	}
	for _, t := range b.teams {
		add(kgmem.Entity{ID: t.id, Name: t.name, Type: "team", Aliases: []string{t.alias}})
	}
	for _, t := range b.techs {
		e := kgmem.Entity{ID: t.id, Name: t.name, Type: "technology"}
		if t.alias != "" {
			e.Aliases = []string{t.alias}
		}
		add(e)
	}
	for _, p := range b.projects {
		add(kgmem.Entity{ID: p.id, Name: p.name, Type: "project", Aliases: []string{p.alias}, Description: p.domain})
	}
	for _, p := range b.people {
		add(kgmem.Entity{ID: p.id, Name: p.name, Type: "person", Description: p.role})
	}
	rel := func(src, dst, typ string, w float64, place placement) {
		if !place.graph() {
			return
		}
		r := kgmem.Relation{SourceID: src, TargetID: dst, Type: typ, Weight: w}
		if id := b.relSrc[r.Key()]; id != "" {
			r.SourceIDs = []string{id}
		}
		s.Relations = append(s.Relations, r)
	}
	for _, t := range b.teams {
		rel(t.id, b.cities[t.city].id, "located_in", 0.9, t.cityPlace)
	}
	for _, p := range b.projects {
		rel(p.id, b.teams[p.team].id, "part_of", 0.8, p.teamPlace)
		rel(b.people[p.lead].id, p.id, "leads", b.weight(0.9, 1), p.leadPlace)
		for _, m := range p.members {
			rel(b.people[m.person].id, p.id, "works_on", b.weight(0.6, 0.9), m.place)
		}
		for _, u := range p.uses {
			rel(p.id, b.techs[u.tech].id, "uses", b.weight(0.5, 0.9), u.place)
		}
	}
	for _, p := range b.people {
		rel(p.id, b.teams[p.team].id, "member_of", 0.7, p.teamPlace)
		if p.manager >= 0 {
			rel(p.id, b.people[p.manager].id, "reports_to", 0.8, p.mgrPlace)
		}
	}
}

// rel is a relevance map under construction; a higher grade wins.
type rel map[string]int

func (r rel) page(id string, grade int) {
	if id != "" {
		r["page:"+id] = max(r["page:"+id], grade)
	}
}

func (r rel) entity(id string, grade int) { r["entity:"+id] = max(r["entity:"+id], grade) }

func (b *evalBuilder) query(kind, lang, subject, text string, r rel) {
	if len(r) == 0 || len(r) > evalMaxRelevant {
		return
	}
	b.set.Queries = append(b.set.Queries, evalQuery{Text: text, Kind: kind, Lang: lang, Subject: subject, Relevant: r})
}

// projectName returns how a question names the project: its name, or now
// and then its short alias.
func (b *evalBuilder) projectName(p *esProject) string {
	if b.rng.Float64() < 0.25 {
		return p.alias
	}
	return p.name
}

// qlang returns whether a question about something in Chinese (zh) or
// English is asked in Chinese: mostly in the same language, now and then in
// the other.
func (b *evalBuilder) qlang(zh bool) bool {
	if b.rng.Float64() < 0.15 {
		return !zh
	}
	return zh
}

func (b *evalBuilder) makeQueries() {
	r := b.rng
	// who-works-on and project-lead: every project.
	for p := range b.projects {
		prj := &b.projects[p]
		lead := &b.people[prj.lead]
		rv := rel{}
		rv.entity(prj.id, 1)
		rv.page(prj.overview, 1)
		rv.entity(lead.id, 2)
		if prj.leadPlace.text() {
			rv.page(prj.overview, 2)
		}
		for _, m := range prj.members {
			rv.entity(b.people[m.person].id, 2)
			rv.page(m.page, 2)
		}
		zh := b.qlang(prj.zh)
		name := b.projectName(prj)
		if zh {
			b.query("who-works-on", "zh", prj.id, fmt.Sprintf(pick(r, []string{"谁在做%s？", "%s有哪些成员？", "哪些人参与了%s？"}), name), rv)
		} else {
			b.query("who-works-on", "en", prj.id, fmt.Sprintf(pick(r, []string{"Who works on %s?", "Which people are working on %s?", "Who is involved in %s?"}), name), rv)
		}

		rv = rel{}
		rv.entity(prj.id, 1)
		rv.entity(lead.id, 2)
		if prj.leadPlace.text() {
			rv.page(prj.overview, 2)
		}
		zh = b.qlang(prj.zh)
		name = b.projectName(prj)
		if zh {
			b.query("project-lead", "zh", prj.id, fmt.Sprintf(pick(r, []string{"%s的负责人是谁？", "谁负责%s？"}), name), rv)
		} else {
			b.query("project-lead", "en", prj.id, fmt.Sprintf(pick(r, []string{"Who leads %s?", "Who is the lead of %s?", "Who is in charge of %s?"}), name), rv)
		}
	}
	// tech-projects: every technology in use, in both languages.
	for k := range b.techs {
		tech := &b.techs[k]
		if len(tech.projects) == 0 {
			continue
		}
		rv := rel{}
		rv.entity(tech.id, 1)
		for _, p := range tech.projects {
			prj := &b.projects[p]
			rv.entity(prj.id, 2)
			for _, u := range prj.uses {
				if u.tech == k {
					rv.page(u.page, 2)
				}
			}
		}
		b.query("tech-projects", "en", tech.id, fmt.Sprintf(pick(r, []string{"Which projects use %s?", "Where do we use %s?", "What is built with %s?"}), tech.name), rv)
		b.query("tech-projects", "zh", tech.id, fmt.Sprintf(pick(r, []string{"哪些项目用了%s？", "%s被哪些项目使用？"}), tech.name), rv)
	}
	// team-tech: every team, in both languages; judged on entities, as no
	// page states what a team uses.
	for t := range b.teams {
		tm := &b.teams[t]
		rv := rel{}
		rv.entity(tm.id, 1)
		for _, p := range tm.projects {
			prj := &b.projects[p]
			rv.entity(prj.id, 1)
			for _, u := range prj.uses {
				rv.entity(b.techs[u.tech].id, 2)
			}
		}
		b.query("team-tech", "en", tm.id, fmt.Sprintf(pick(r, []string{"What technologies does the %s use?", "What is the tech stack of the %s?", "Which tools does the %s rely on?"}), tm.name), rv)
		b.query("team-tech", "zh", tm.id, fmt.Sprintf(pick(r, []string{"%s用哪些技术？", "%s的技术栈是什么？"}), tm.alias), rv)
	}
	// reports-to: every manager.
	reports := make([][]int, len(b.people))
	for i, per := range b.people {
		if per.manager >= 0 {
			reports[per.manager] = append(reports[per.manager], i)
		}
	}
	orgPage := func(report int) string {
		per := &b.people[report]
		return b.relSrc[kgmem.RelationKey{SourceID: per.id, TargetID: b.people[per.manager].id, Type: "reports_to"}]
	}
	for m, rs := range reports {
		if len(rs) == 0 {
			continue
		}
		mgr := &b.people[m]
		rv := rel{}
		rv.entity(mgr.id, 1)
		for _, p := range rs {
			rv.entity(b.people[p].id, 2)
			rv.page(orgPage(p), 2)
		}
		if b.qlang(mgr.zh) {
			b.query("reports-to", "zh", mgr.id, fmt.Sprintf(pick(r, []string{"谁向%s汇报？", "%s的下属有哪些？"}), mgr.name), rv)
		} else {
			b.query("reports-to", "en", mgr.id, fmt.Sprintf(pick(r, []string{"Who reports to %s?", "Who is on %s's team?"}), mgr.name), rv)
		}
	}
	// Per person: projects, city, about. Half the people, chosen at random,
	// are asked about each.
	for _, i := range r.Perm(len(b.people)) {
		per := &b.people[i]
		team := &b.teams[per.team]
		city := &b.cities[team.city]
		if len(per.projects)+len(per.leads) > 0 && r.IntN(3) < 2 {
			rv := rel{}
			rv.entity(per.id, 1)
			for _, p := range per.projects {
				prj := &b.projects[p]
				rv.entity(prj.id, 2)
				for _, m := range prj.members {
					if m.person == i {
						rv.page(m.page, 2)
					}
				}
			}
			for _, p := range per.leads {
				prj := &b.projects[p]
				rv.entity(prj.id, 2)
				if prj.leadPlace.text() {
					rv.page(prj.overview, 2)
				}
			}
			if b.qlang(per.zh) {
				b.query("person-projects", "zh", per.id, fmt.Sprintf(pick(r, []string{"%s负责什么项目？", "%s在做哪些项目？", "%s参与了什么项目？"}), per.name), rv)
			} else {
				b.query("person-projects", "en", per.id, fmt.Sprintf(pick(r, []string{"What does %s work on?", "Which projects is %s working on?", "What projects is %s involved in?"}), per.name), rv)
			}
		}
		if r.IntN(3) == 0 {
			rv := rel{}
			rv.entity(per.id, 1)
			rv.entity(team.id, 1)
			rv.entity(city.id, 2)
			if per.cityInText {
				rv.page(per.profile, 2)
			}
			if team.cityPlace.text() {
				rv.page("office-"+strings.TrimPrefix(team.id, "team:"), 1)
			}
			if b.qlang(per.zh) {
				b.query("person-city", "zh", per.id, fmt.Sprintf(pick(r, []string{"%s在哪个城市？", "%s在哪里办公？"}), per.name), rv)
			} else {
				b.query("person-city", "en", per.id, fmt.Sprintf(pick(r, []string{"Which city is %s based in?", "Which office is %s in?"}), per.name), rv)
			}
		}
		if r.IntN(2) == 0 {
			rv := rel{}
			rv.entity(per.id, 2)
			rv.page(per.profile, 2)
			rv.page(per.hr, 2)
			for _, id := range b.sources[per.id] {
				rv.page(id, 1)
			}
			rv.entity(team.id, 1)
			for _, p := range append(slices.Clone(per.projects), per.leads...) {
				rv.entity(b.projects[p].id, 1)
			}
			if b.qlang(per.zh) {
				b.query("about-person", "zh", per.id, fmt.Sprintf(pick(r, []string{"介绍一下%s", "%s是谁？", "%s的情况"}), per.name), rv)
			} else {
				b.query("about-person", "en", per.id, fmt.Sprintf(pick(r, []string{"Tell me about %s", "Who is %s?", "What do we know about %s?"}), per.name), rv)
			}
		}
	}
	for _, q := range b.textQueries {
		b.query(q.kind, q.lang, "", q.text, rel{"page:" + q.page: 2})
	}
}

// TestRetrievalEvaluationSetIsConsistent checks the generated set: it is
// deterministic, its relevance judgements name items that exist, every
// query can reach recall 1 within 10 results, and the entities each page
// names by construction are exactly those LinkEntities finds in it.
func TestRetrievalEvaluationSetIsConsistent(t *testing.T) {
	set := newEvalSet()
	require.Equal(t, set, newEvalSet(), "the set must be deterministic")
	pages, entities := map[string]bool{}, map[string]bool{}
	for _, p := range set.Pages {
		require.False(t, pages[p.ID], "duplicate page %s", p.ID)
		pages[p.ID] = true
	}
	g := kgmem.NewInMemoryGraph()
	ctx := context.Background()
	for _, e := range set.Entities {
		require.False(t, entities[e.ID], "duplicate entity %s", e.ID)
		entities[e.ID] = true
		for _, s := range e.SourceIDs {
			require.True(t, pages[s], "entity %s cites missing page %s", e.ID, s)
		}
		require.NoError(t, g.AddEntity(ctx, e))
	}
	for _, r := range set.Relations {
		require.NoError(t, g.AddRelation(ctx, r))
	}
	kinds := map[string]int{}
	for _, q := range set.Queries {
		kinds[q.Kind]++
		require.NotEmpty(t, q.Relevant, q.Text)
		require.LessOrEqual(t, len(q.Relevant), evalMaxRelevant, q.Text)
		for key, grade := range q.Relevant {
			kind, id, _ := strings.Cut(key, ":")
			switch kind {
			case "page":
				require.True(t, pages[id], "query %q judges missing page %s", q.Text, id)
			case "entity":
				require.True(t, entities[id], "query %q judges missing entity %s", q.Text, id)
			default:
				t.Fatalf("query %q: bad item %q", q.Text, key)
			}
			require.Contains(t, []int{1, 2}, grade)
		}
	}
	for _, k := range evalKinds {
		require.Positive(t, kinds[k.Name], "no query of kind %s", k.Name)
	}
	require.GreaterOrEqual(t, len(set.Pages), 300)
	require.GreaterOrEqual(t, len(set.Queries), 300)
	for _, p := range set.Pages {
		ms, err := g.LinkEntities(ctx, p.Title+"\n"+p.Content)
		require.NoError(t, err)
		var got []string
		for _, m := range ms {
			got = append(got, m.Entity.ID)
		}
		require.Equal(t, set.Mentions[p.ID], slices.Compact(slices.Sorted(slices.Values(got))), "page %s: %s %s", p.ID, p.Title, p.Content)
	}
}
