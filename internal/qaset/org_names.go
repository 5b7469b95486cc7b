package qaset

// Word lists for the Org set's names.

// Chinese surnames and given names with their pinyin.
var zhSurnames = [][2]string{
	{"王", "Wang"}, {"李", "Li"}, {"张", "Zhang"}, {"刘", "Liu"}, {"陈", "Chen"}, {"杨", "Yang"}, {"黄", "Huang"},
	{"赵", "Zhao"}, {"吴", "Wu"}, {"周", "Zhou"}, {"徐", "Xu"}, {"孙", "Sun"}, {"马", "Ma"}, {"朱", "Zhu"},
	{"胡", "Hu"}, {"郭", "Guo"}, {"何", "He"}, {"林", "Lin"}, {"罗", "Luo"}, {"高", "Gao"}, {"郑", "Zheng"},
	{"梁", "Liang"}, {"谢", "Xie"}, {"宋", "Song"}, {"唐", "Tang"}, {"许", "Xu"}, {"韩", "Han"}, {"冯", "Feng"},
	{"邓", "Deng"}, {"曹", "Cao"}, {"彭", "Peng"}, {"曾", "Zeng"}, {"肖", "Xiao"}, {"田", "Tian"}, {"董", "Dong"},
	{"潘", "Pan"}, {"袁", "Yuan"}, {"蔡", "Cai"}, {"蒋", "Jiang"}, {"余", "Yu"},
}

var zhGivenNames = [][2]string{
	{"伟", "Wei"}, {"娜", "Na"}, {"芳", "Fang"}, {"敏", "Min"}, {"静", "Jing"}, {"磊", "Lei"}, {"强", "Qiang"},
	{"洋", "Yang"}, {"艳", "Yan"}, {"勇", "Yong"}, {"军", "Jun"}, {"杰", "Jie"}, {"娟", "Juan"}, {"涛", "Tao"},
	{"明", "Ming"}, {"超", "Chao"}, {"秀英", "Xiuying"}, {"霞", "Xia"}, {"平", "Ping"}, {"刚", "Gang"},
	{"桂英", "Guiying"}, {"建华", "Jianhua"}, {"文", "Wen"}, {"华", "Hua"}, {"红", "Hong"}, {"丽", "Li"},
	{"鹏", "Peng"}, {"宇", "Yu"}, {"浩", "Hao"}, {"欣怡", "Xinyi"}, {"子涵", "Zihan"}, {"梓萱", "Zixuan"},
	{"一诺", "Yinuo"}, {"思远", "Siyuan"}, {"嘉怡", "Jiayi"}, {"俊杰", "Junjie"}, {"晓东", "Xiaodong"},
	{"海燕", "Haiyan"}, {"志强", "Zhiqiang"}, {"雪", "Xue"}, {"琳", "Lin"}, {"婷", "Ting"}, {"斌", "Bin"},
	{"健", "Jian"}, {"凯", "Kai"}, {"晨", "Chen"}, {"阳", "Yang"}, {"欣", "Xin"}, {"颖", "Ying"}, {"倩", "Qian"},
	{"博", "Bo"}, {"峰", "Feng"}, {"亮", "Liang"}, {"飞", "Fei"}, {"慧", "Hui"}, {"蕾", "Lei"}, {"瑶", "Yao"},
	{"毅", "Yi"}, {"楠", "Nan"}, {"雨桐", "Yutong"}, {"浩然", "Haoran"}, {"子轩", "Zixuan"}, {"诗涵", "Shihan"},
	{"佳琪", "Jiaqi"}, {"宇航", "Yuhang"}, {"晓明", "Xiaoming"}, {"丽娟", "Lijuan"}, {"国强", "Guoqiang"},
}

// Departments: Chinese names with English aliases.
var orgDepartments = [][]string{
	{"研发部", "R&D", "R&D department", "Engineering"}, {"产品部", "Product department"}, {"设计部", "Design department"},
	{"市场部", "Marketing", "Marketing department"}, {"销售部", "Sales", "Sales department"},
	{"财务部", "Finance", "Finance department"}, {"人力资源部", "HR", "Human Resources"}, {"法务部", "Legal", "Legal department"},
	{"运营部", "Operations", "Operations department"}, {"客服部", "Customer Support"}, {"数据部", "Data department"},
	{"安全部", "Security department"},
}

var orgDeptWeights = []float64{45, 10, 4, 6, 8, 3, 2, 1.5, 6, 5, 6, 3.5}

// Team names by department: English and Chinese.
var orgTeamAreas = [][]string{
	{"Payments", "Search", "Platform", "Infra", "Mobile", "Identity", "Billing", "Checkout", "Messaging", "Observability",
		"Storage", "Networking", "Developer Tools", "Release Engineering", "Core Services", "Web", "API Gateway",
		"Recommendations", "Ads Serving", "Maps", "支付组", "搜索组", "基础架构组", "客户端组", "推荐组", "中间件组",
		"运维组", "测试组", "前端组", "后端组", "存储组", "网关组", "大模型组", "音视频组", "风控组"},
	{"Growth", "Onboarding", "Pricing", "增长组", "会员组", "产品规划组"},
	{"Brand Design", "UX Research", "视觉设计组", "交互设计组"},
	{"Brand", "Events", "Content", "品牌组", "渠道组", "活动组"},
	{"Enterprise Sales", "Partnerships", "Sales Ops", "大客户组", "华东销售组", "华南销售组", "海外销售组"},
	{"Treasury", "Accounting", "会计组", "税务组"},
	{"Recruiting", "People Ops", "招聘组", "培训组"},
	{"Compliance", "合同组"},
	{"Trust & Safety", "Supply Chain", "Logistics", "内容运营组", "用户运营组", "供应链组"},
	{"Support Tier 1", "Support Tier 2", "客服一组", "客服二组", "VIP客服组"},
	{"Data Platform", "Analytics", "Data Science", "BI", "数据仓库组", "数据分析组", "算法组"},
	{"Security Operations", "AppSec", "Red Team", "安全运营组", "合规审计组"},
}

var orgProjectNames = fields(`Apollo Phoenix Atlas Orion Hermes Nova Zephyr Falcon Aurora Titan Mercury Gemini Pegasus Helios
	Artemis Athena Odyssey Polaris Vega Lyra Sirius Andromeda Cassini Voyager Kepler Hubble Everest Sequoia Redwood Cedar
	Maple Willow Aspen Birch Cobalt Indigo Onyx Jade Amber Quartz Granite Basalt Obsidian Condor Osprey Heron Kestrel
	Lynx Puma Jaguar Panther Bison Orca Narwhal Marlin Stingray Beacon Lighthouse Compass Sextant Anchor Harbor Keystone
	Cornerstone Bedrock Summit Horizon Meridian Equinox Solstice Zenith Nadir Comet Meteor Nebula Quasar Pulsar Photon
	Neutrino Tesla Edison Turing Lovelace Hopper Babbage Pascal Newton Galileo Darwin Curie Faraday Maxwell Raman
	Borealis Tundra Sahara Monsoon Typhoon Cyclone Avalanche Glacier Canyon Delta Prairie Savanna Lagoon Atoll Reef
	Ember Blaze Spark Flare Torch Lantern Prism Spectrum Vector Matrix Tensor Lambda Sigma Omega Alpha Kappa Theta Iota
	Mosaic Tapestry Origami Bonsai Sakura Lotus Orchid Jasmine Saffron Cinnamon Ginger Wasabi Mochi Sushi Ramen Dumpling`)

var orgProjectNamesZh = fields(`天河 凤凰 盘古 女娲 神农 伏羲 昆仑 泰山 长城 黄河 长江 青龙 白虎 朱雀 玄武 麒麟 鲲鹏 北斗 天宫
	嫦娥 玉兔 悟空 哪吒 精卫 夸父 后羿 祝融 天问 羲和 望舒 织女 烛龙 应龙 白泽 星火 燎原 启明 破晓 远航 磐石 灵犀
	云帆 天枢 天璇 天玑 天权 玉衡 开阳 摇光 蓝鲸 飞鱼 海燕 雪豹 猎鹰 神舟 蛟龙 墨子 鲁班 指南针 千里眼 顺风耳 筋斗云`)

var orgTechnologies = fields(`Go Rust Java Python Kotlin Swift TypeScript JavaScript C++ C# Scala Ruby PHP Elixir Haskell
	Lua Dart R SQL Kubernetes Docker Terraform Ansible Helm Istio Envoy Nginx Kafka RabbitMQ Pulsar Redis Memcached
	PostgreSQL MySQL MongoDB Cassandra ClickHouse Elasticsearch Spark Flink Hadoop Hive Presto Airflow dbt Snowflake
	BigQuery React Vue Angular Svelte Next.js Node.js Django Flask Spring_Boot gRPC GraphQL Protobuf TensorFlow PyTorch
	ONNX Prometheus Grafana Jaeger OpenTelemetry Vault Consul etcd ZooKeeper Linux WebAssembly CUDA Triton Ray Jenkins
	GitLab_CI GitHub_Actions Argo_CD Flutter React_Native Unity OpenCV FFmpeg WebRTC SQLite TiDB OceanBase Nacos Dubbo
	RocketMQ Seata Vite Webpack Tailwind Redux Celery FastAPI Gin Echo Tokio Actix Pandas NumPy scikit-learn Jupyter
	Tableau Superset Metabase LangChain Milvus Faiss 鸿蒙 小程序 微服务网关 向量数据库`)

// Skills: Chinese with an English alias, or English only.
var orgSkills = [][]string{
	{"机器学习", "machine learning"}, {"项目管理", "project management"}, {"数据分析", "data analysis"},
	{"前端开发", "frontend development"}, {"后端开发", "backend development"}, {"产品设计", "product design"},
	{"用户研究", "user research"}, {"交互设计", "interaction design"}, {"公开演讲", "public speaking"},
	{"商务谈判", "negotiation"}, {"财务建模", "financial modeling"}, {"法律合规", "legal compliance"},
	{"招聘", "recruiting"}, {"技术写作", "technical writing"}, {"英语", "English"}, {"日语", "Japanese"},
	{"数据库调优", "database tuning"}, {"性能优化", "performance tuning"}, {"分布式系统", "distributed systems"},
	{"网络安全", "cyber security"}, {"渗透测试", "penetration testing"}, {"自然语言处理", "NLP"},
	{"计算机视觉", "computer vision"}, {"推荐系统", "recommender systems"}, {"搜索排序", "search ranking"},
	{"容量规划", "capacity planning"}, {"故障排查", "troubleshooting"}, {"架构设计", "system architecture"},
	{"团队管理", "people management"}, {"需求分析", "requirements analysis"}, {"视频剪辑", "video editing"},
	{"品牌策划", "brand strategy"}, {"内容运营", "content operations"}, {"用户增长", "user growth"},
	{"供应链管理", "supply chain management"}, {"税务筹划", "tax planning"}, {"审计", "auditing"},
	{"客户成功", "customer success"}, {"售前咨询", "presales consulting"}, {"合同审核", "contract review"},
	{"统计学", "statistics"}, {"深度学习", "deep learning"}, {"大模型微调", "LLM fine-tuning"},
	{"提示词工程", "prompt engineering"}, {"移动开发", "mobile development"}, {"嵌入式开发", "embedded development"},
	{"编译器", "compilers"}, {"密码学", "cryptography"}, {"运维自动化", "DevOps"}, {"测试自动化", "test automation"},
	{"SQL优化"}, {"Excel"}, {"PPT制作"}, {"粤语", "Cantonese"}, {"德语", "German"},
	{"A/B testing"}, {"incident management"}, {"stakeholder management"}, {"technical interviewing"},
	{"code review"}, {"pair programming"}, {"mentoring"}, {"copywriting"}, {"SEO"}, {"growth hacking"},
	{"data visualization"}, {"Figma"}, {"Kubernetes operations"}, {"on-call leadership"}, {"budgeting"},
	{"forecasting"}, {"vendor management"}, {"sales engineering"}, {"solution architecture"}, {"UX writing"},
	{"accessibility"}, {"localization"}, {"game design"}, {"3D modeling"}, {"photography"}, {"event planning"},
	{"community management"}, {"public relations"}, {"crisis communication"}, {"risk modeling"},
	{"fraud detection"}, {"time series analysis"}, {"causal inference"}, {"reinforcement learning"},
	{"speech recognition"}, {"information retrieval"}, {"query optimization"}, {"stream processing"},
	{"chaos engineering"}, {"site reliability"}, {"network engineering"}, {"hardware design"}, {"FPGA"},
	{"Android"}, {"iOS"}, {"WeChat mini programs"}, {"Rust programming"}, {"Go programming"},
}

// Cities: Chinese cities named in Chinese with an English alias, others
// named in English with a Chinese alias.
var orgCities = [][]string{
	{"北京", "Beijing"}, {"上海", "Shanghai"}, {"深圳", "Shenzhen"}, {"广州", "Guangzhou"}, {"杭州", "Hangzhou"},
	{"成都", "Chengdu"}, {"南京", "Nanjing"}, {"武汉", "Wuhan"}, {"西安", "Xi'an"}, {"苏州", "Suzhou"},
	{"天津", "Tianjin"}, {"重庆", "Chongqing"}, {"厦门", "Xiamen"}, {"青岛", "Qingdao"}, {"大连", "Dalian"},
	{"长沙", "Changsha"}, {"合肥", "Hefei"}, {"香港", "Hong Kong"}, {"台北", "Taipei"}, {"新加坡", "Singapore"},
	{"London", "伦敦"}, {"New York", "纽约"}, {"San Francisco", "旧金山"}, {"Seattle", "西雅图"}, {"Tokyo", "东京"},
	{"Berlin", "柏林"}, {"Paris", "巴黎"}, {"Sydney", "悉尼"}, {"Toronto", "多伦多"}, {"Bangalore", "班加罗尔"},
	{"Dublin", "都柏林"}, {"Amsterdam", "阿姆斯特丹"}, {"Seoul", "首尔"}, {"Dubai", "迪拜"}, {"Austin", "奥斯汀"},
	{"Boston", "波士顿"}, {"Munich", "慕尼黑"}, {"Zurich", "苏黎世"}, {"Stockholm", "斯德哥尔摩"}, {"São Paulo", "圣保罗"},
}

// Offices: name, aliases..., and the city (last).
var orgOffices = [][]string{
	{"张江办公室", "Zhangjiang office", "上海"}, {"漕河泾办公室", "Caohejing office", "上海"},
	{"望京办公室", "Wangjing office", "北京"}, {"中关村办公室", "Zhongguancun office", "北京"},
	{"深圳湾办公室", "Shenzhen Bay office", "深圳"}, {"西溪园区", "Xixi campus", "杭州"},
	{"天府办公室", "Tianfu office", "成都"}, {"珠江新城办公室", "Zhujiang office", "广州"},
	{"光谷办公室", "Optics Valley office", "武汉"}, {"南京研发中心", "Nanjing R&D center", "南京"},
	{"西安办公室", "Xi'an office", "西安"}, {"苏州工业园办公室", "Suzhou Industrial Park office", "苏州"},
	{"厦门办公室", "Xiamen office", "厦门"}, {"香港办公室", "Hong Kong office", "香港"},
	{"新加坡办公室", "Singapore office", "新加坡"}, {"London Office", "伦敦办公室", "London"},
	{"King's Cross Hub", "London"}, {"Seattle Office", "西雅图办公室", "Seattle"},
	{"Mission Bay Office", "San Francisco"}, {"Berlin Office", "柏林办公室", "Berlin"},
	{"Tokyo Office", "东京办公室", "Tokyo"}, {"Dublin Office", "Dublin"}, {"Bangalore Office", "Bangalore"},
	{"Toronto Office", "Toronto"}, {"Sydney Office", "悉尼办公室", "Sydney"}, {"Amsterdam Office", "Amsterdam"},
	{"New York Office", "纽约办公室", "New York"}, {"Austin Office", "Austin"}, {"Munich Office", "Munich"},
	{"Seoul Office", "首尔办公室", "Seoul"},
}

var orgCompanyPrefixes = fields(`Blue North Silver Bright Summit Pioneer Harbor Vertex Apex Crescent Evergreen Granite Redwood
	Sterling Liberty Horizon Pinnacle Keystone Meridian Oakridge Riverside Lakeside Northwind Contoso Globex Initech
	Acme Hooli Vandelay Soylent Tyrell Wayne Stark Umbra Nimbus Polar Solar Lunar Stellar Quantum Fusion Vector Nexus`)

var orgCompanySuffixes = fields(`Logistics Bank Insurance Retail Foods Motors Health Energy Telecom Airlines Media Capital Pharma
	Systems Labs Holdings Group Industries Partners Robotics`)

var orgCompanyPrefixesZh = fields(`华信 东方 恒通 安泰 中联 鼎盛 锦程 宏达 永安 天成 金桥 瑞丰 博远 星辰 凯越 华泰 盛世 万象 远景 海纳
	同创 嘉禾 明德 汇通 新元 云图 智谷 青禾 北辰 南风`)

var orgCompanySuffixesZh = fields(`科技 物流 银行 保险 零售 食品 汽车 医疗 能源 通信 航空 传媒 资本 制药 集团`)
