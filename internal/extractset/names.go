package extractset

// Word lists the world's names are made from. They were written for this
// package and resemble no real data set; several lists share words on
// purpose (a surname that is also a company stem, a city that names a
// university), as real names do.

var femaleFirst = []string{
	"Alice", "Beatrice", "Clara", "Dora", "Edith", "Fiona", "Grace", "Helena", "Irene", "Joan",
	"Karin", "Lena", "Maria", "Nora", "Olive", "Paula", "Rosa", "Sofia", "Tessa", "Una",
	"Vera", "Wanda", "Yara", "Zoe", "Agnes", "Bianca", "Celia", "Daphne", "Elsa", "Flora",
	"Gemma", "Hilda", "Ines", "Judith", "Lydia", "Miriam", "Nadia", "Ottilie", "Petra", "Ruth",
	"Selma", "Thea", "Ursula", "Viola", "Wilma", "Ada", "Bettina", "Carmen", "Delia", "Elena",
	"Frida", "Greta", "Hanna", "Ida", "Jana", "Klara", "Linnea", "Marta", "Nina", "Olga",
}

var maleFirst = []string{
	"Adam", "Bruno", "Carl", "Daniel", "Emil", "Felix", "Gustav", "Hugo", "Ivan", "Jonas",
	"Karl", "Leo", "Martin", "Nils", "Oscar", "Paul", "Rafael", "Simon", "Tobias", "Victor",
	"Walter", "Xavier", "Yusuf", "Anton", "Boris", "Conrad", "Dmitri", "Erik", "Frank", "Georg",
	"Henrik", "Igor", "Jakob", "Kurt", "Lars", "Magnus", "Otto", "Peter", "Roland", "Stefan",
	"Theo", "Ulrich", "Viktor", "Werner", "Albert", "Bernard", "Casimir", "Dario", "Edgar", "Fabian",
	"Gregor", "Harald", "Isak", "Julian", "Klaus", "Louis", "Mats", "Noah", "Oliver", "Pavel",
}

var surnames = []string{
	"Abbott", "Barros", "Castell", "Dahlgren", "Eklund", "Falk", "Garrow", "Holm", "Ivers", "Jansen",
	"Kessler", "Lindqvist", "Moreau", "Nyberg", "Osterman", "Pryce", "Quist", "Rasmussen", "Sandell", "Thorne",
	"Ulvaeus", "Vance", "Wexler", "Yardley", "Zeller", "Aldana", "Brandt", "Corvin", "Dorsey", "Engel",
	"Fontaine", "Gallo", "Hartwell", "Ingram", "Jarvis", "Kovacs", "Lorne", "Maddox", "Navarro", "Oakes",
	"Palmer", "Quinlan", "Rourke", "Sterling", "Talbot", "Umber", "Varga", "Whitlock", "Yates", "Zorn",
	"Ashby", "Bellamy", "Crane", "Delacroix", "Ellery", "Fairbanks", "Gage", "Hale", "Irving", "Jessup",
	"Keane", "Langley", "Mercer", "Norwood", "Ormsby", "Pickett", "Radcliffe", "Sheridan", "Trask", "Upton",
	"Vickers", "Wendell", "Yorke", "Zimmer", "Alcott", "Blackwood", "Calloway", "Drummond", "Everett", "Fletcher",
	"Grimaldi", "Hollis", "Imhof", "Jovanovic", "Kowalski", "Larsen", "Moretti", "Nakamura", "Okafor", "Petrov",
	"Reyes", "Sorensen", "Tanaka", "Urbina", "Valdez", "Weiss", "Xu", "Yilmaz", "Zhou", "Andersen",
	"Bergstrom", "Carrington", "Dunmore", "Eastwick", "Fenwick", "Greaves", "Hawthorne", "Isley", "Jennings", "Kimball",
	"Lockhart", "Marlowe", "Nettles", "Overton", "Prescott", "Redfern", "Stroud", "Tennant", "Underhill", "Voss",
	"Winslow", "Ashdown", "Birch", "Coldwell", "Darrow", "Elwood", "Foley", "Granger", "Harlow", "Ibsen",
	"Kinsey", "Lowell", "Merriman", "Nolan", "Pemberton", "Quayle", "Rowntree", "Selwyn", "Thackeray", "Vane",
}

var cityHeads = []string{
	"Ash", "Bel", "Cor", "Dun", "El", "Fair", "Glen", "Hart", "Iver", "Kings",
	"Lang", "Mar", "North", "Oak", "Pen", "Red", "Stan", "Thorn", "Upper", "Vel",
	"West", "Bram", "Cal", "Dover", "Elm", "Frost", "Gold", "Haven", "Kel", "Lyn",
	"Mill", "New", "Old", "Port", "Rock", "Silver", "Tar", "Wyn", "Ald", "Brook",
}

var cityTails = []string{
	"ford", "ton", "bury", "ville", "stead", "mouth", "field", "wick", "dale", "haven",
	"port", "worth", "by", "holm", "gate", "minster", "bridge", "ridge", "moor", "crest",
}

var countryNames = []string{
	"Norland", "Vestria", "Caldora", "Ostmark", "Belvania", "Marovia", "Thessaly Minor", "Arkadia", "Lusenia", "Dravonia",
	"Esteria", "Korvath", "Valmora", "Serenia", "Quellan", "Rhovia", "Tarsland", "Umbria Nova", "Zelmark", "Hollandia",
	"Kastoria", "Lorvane", "Meridia", "Nordvik", "Orelia", "Pravia", "Ruthenia", "Sundara", "Trevia", "Varland",
	"Westmark", "Ystria", "Aldoria", "Borsk", "Cyrenia", "Delmar", "Ebonia", "Faroz", "Gallia Nova", "Helvar",
}

var companyStems = []string{
	"Acme", "Apex", "Boreal", "Cobalt", "Dynamo", "Ember", "Falcon", "Granite", "Helix", "Ionic",
	"Juniper", "Keystone", "Lumen", "Meridian", "Nimbus", "Onyx", "Pinnacle", "Quasar", "Radiant", "Summit",
	"Tundra", "Unity", "Vertex", "Wavelength", "Zenith", "Atlas", "Beacon", "Cascade", "Delta", "Equinox",
	"Fathom", "Glacier", "Harbor", "Indigo", "Jetstream", "Kestrel", "Lattice", "Monarch", "Northstar", "Orbit",
	"Paragon", "Quarry", "Redwood", "Sable", "Tidewater", "Upland", "Vanguard", "Willow", "Yellowstone", "Zephyr",
	"Aurora", "Bluefin", "Citadel", "Drift", "Everest", "Firefly", "Gryphon", "Hemlock", "Ironwood", "Jasper",
}

// companySuffixes pairs each suffix with its other spellings: the forms
// text and extraction drift between.
var companySuffixes = [][]string{
	{"Corp.", "Corp", "Corporation"},
	{"Inc.", "Inc", ", Inc."},
	{"Pictures", "Pictures Inc."},
	{"Studios", "Studio"},
	{"Group", "Group Ltd"},
	{"Holdings", "Holdings plc"},
	{"Media", "Media Group"},
	{"Industries", "Industries Ltd."},
	{"Labs", "Laboratories"},
	{"Publishing", "Publishers"},
}

var filmAdjectives = []string{
	"Silent", "Crimson", "Broken", "Hidden", "Endless", "Golden", "Frozen", "Burning", "Lonely", "Distant",
	"Savage", "Gentle", "Hollow", "Midnight", "Scarlet", "Wild", "Last", "First", "Secret", "Bitter",
	"Restless", "Shattered", "Velvet", "Iron", "Paper", "Glass", "Stolen", "Forgotten", "Wandering", "Sleeping",
	"Electric", "Quiet", "Lost", "Dark", "Bright", "Northern", "Southern", "Eastern", "Western", "Falling",
}

var filmNouns = []string{
	"Harbor", "Tide", "Mirror", "Garden", "Empire", "River", "Winter", "Summer", "Horizon", "Shadow",
	"Kingdom", "Highway", "Lantern", "Orchard", "Station", "Frontier", "Carnival", "Voyage", "Signal", "Monsoon",
	"Citadel", "Meadow", "Avenue", "Fortress", "Canyon", "Requiem", "Sonata", "Island", "Bridge", "Compass",
	"Harvest", "Lighthouse", "Tempest", "Labyrinth", "Masquerade", "Vendetta", "Reckoning", "Passage", "Covenant", "Echo",
	"Ember", "Drifter", "Outpost", "Mariner", "Wolf", "Raven", "Falcon", "Serpent", "Lion", "Stag",
}

var bookHeads = []string{
	"A History of", "The Book of", "Letters from", "Songs of", "The Last Days of", "Notes on",
	"The Keeper of", "Children of", "The House of", "Return to", "Memories of", "The Road to",
}

var bookTails = []string{
	"Ashes", "Salt", "Thunder", "Lilies", "Strangers", "Stone", "Rain", "Dust", "Wolves", "Clocks",
	"Embers", "Glass", "Feathers", "Iron", "Silence", "Orchards", "Rivers", "Lanterns", "Ghosts", "Kings",
	"Storms", "Mirrors", "Roses", "Winters", "Shadows", "Bells", "Sparrows", "Tides", "Maps", "Masks",
}

var nationalities = []string{"Norlandic", "Vestrian", "Caldoran", "Ostmarkish", "Belvanian", "Marovian", "American", "British", "French", "German"}

var filmGenres = []string{"drama", "comedy", "thriller", "science fiction", "horror", "romance", "war", "crime", "documentary", "musical"}

var industries = []string{"media", "technology", "film production", "publishing", "energy", "retail", "telecommunications", "software", "manufacturing", "logistics"}
