package qaset

import "strings"

// Word lists for the Movies set's names.

func fields(s string) []string { return strings.Fields(s) }

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// Titles that are common words: hard for entity linking.
var commonWordTitles = fields(`Up Her It Home Star Wild Us Rain Go Heat Signs Crash Speed Alone Fear Together Run Night Life
	Drive Gravity Fire Stay Blue Gone Now Hope Free Rush Lost Split Them Nine Love Water Boss Friends Sunday
	Tomorrow Mother Ghost Trust Arrival Contact Birds Jaws Cars Taken Push Fury Sorry Wonder Ready Brave Frozen`)

// Short common phrases used as titles.
var phraseTitles = lines(`
	The Game
	The Cast
	The Producers
	Directions
	Hello Again
	The Others
	The Way Back
	Into the Wild
	Out of Time
	Made in Heaven
	About Time
	The Last Word
	The Score
	Who Knows
	Big
	Home Again
	Before Sunrise Again
	What Happened Next
	The Director's Cut
	Spoken Word`)

// Titles with punctuation.
var punctTitles = lines(`
	Spider-Man: Far Away
	Ocean's Twelve
	Mission: Impossible – Rogue
	Dr. No
	Mr. Jones's Garden
	Catch-22: Second Run
	Don't Breathe Twice
	Who's There?
	Ready, Set, Gone!
	Smith & Daughters
	Half-Light
	X-Ray: The Return
	The Good, the Bad and the Lonely
	Run, Sister, Run
	E.T.A.
	Mother's Day Off
	It's Complicated, Again
	L.A. Nights
	Ten O'Clock Sharp
	Hello, Goodbye
	Dear John, Love Mary
	Wait... What?
	Oh, Brother!
	Sci-Fi High
	Jekyll & Hyde & Co.
	Face/Off the Record
	Mrs. Brown's Bakery
	St. Louis Blues Revisited
	Twenty-One Grams
	Dr. Strange's Apprentice
	U.S. Marshals: Night Shift
	Ocean's Thirteen
	Night-Walker
	Self-Made
	Rock 'n' Roll High
	Tick, Tock
	No. 9 Baker Street
	The King's Men: Part II
	Where's Wanda?
	Anything Goes!`)

// Titles of more than 16 words.
var longTitles = lines(`
	The Curious Tale of the Girl Who Walked Across the Frozen Sea to Find Her Father's Lost Lighthouse
	Everything You Ever Wanted to Know About the Moon but Were Too Afraid to Ask Your Grandmother
	How the Old Man Who Lived at the End of the Road Learned to Stop Waiting and Love the Rain
	A Short and Mostly True History of the Last Summer Before Everything in Our Small Town Changed Forever
	The Night the Lights Went Out in the Little Theater on the Corner of Fifth and Main Street
	Why My Brother and I Never Spoke Again After the Wedding of Our Cousin in the Mountains of Peru
	Notes on the Strange and Wonderful Life of a Man Who Collected Clocks, Keys, Maps and Broken Promises
	If You Can Read This Then the Ship Has Already Sailed and the Captain Has Gone Home for Good`)

// Titles used by two different films.
var duplicateTitles = fields(`Home Rain Crash Alone Heat Homecoming Drive Fury`)

var titleAdjectives = fields(`Silent Broken Golden Dark Last Lost Hidden Secret Burning Frozen Crimson Wild Little Great Final
	Empty Bitter Sweet Distant Fallen Endless Electric Quiet Savage Restless Midnight Northern Southern Eternal Iron
	Silver Paper Glass Hollow Scarlet Velvet Lonely Brave Strange Perfect Deadly Wicked Gentle Blind Forgotten Sacred
	Stolen Shattered Rising Falling Painted Crooked Narrow Bright Cold Black White Green Young Old Long Dangerous
	Beautiful Invisible Impossible Sleeping Wandering Raging Howling Lucky Naked Hungry Holy Drunken Rusty Cruel`)

var titleNouns = fields(`River Sky Heart Road City Night Storm Shadow Garden Dream Kingdom Island Window Mirror Bridge Horizon
	Promise Crown Knife Letter House Hotel Train Station Harbor Desert Forest Mountain Valley Winter Summer Autumn
	Spring Empire Ghost Angel Devil Wolf Tiger Dragon Raven Hunter Stranger Soldier Queen King Prince Daughter Son
	Mother Father Sister Brother Widow Doctor Detective Thief Killer Lover Dancer Singer Pilot Sailor Teacher Judge
	Witness Jury Verdict Code Signal Machine Planet Moon Sun Ocean Sea Wave Ice Smoke Ash Dust Stone Silk Gold
	Blood Bone Rose Lily Orchid Wind Thunder Lightning Echo Whisper Song Dance Waltz Tango Symphony Memory Journey
	Voyage Escape Return Revenge Reckoning Awakening Legacy Covenant Frontier Border Line Circle Tower Castle Palace
	Prison Asylum Circus Carnival Market Street Avenue Alley Lane Party Wedding Funeral Holiday Weekend Morning
	Evening Hour Season Century Affair Conspiracy Deal Job Heist Chase Trap Maze Puzzle Key Door Mask Cage Engine
	Orchard Lantern Compass Anchor Harvest Paradise Inferno Requiem Lullaby Ballad Diary Portrait Shelter Tide`)

var titlePlaces = fields(`Paris Vienna Berlin Tokyo Cairo Havana Lisbon Rome Venice Madrid Bombay Shanghai Istanbul Casablanca
	Marrakesh Texas Alaska Brooklyn Harlem Chinatown Manhattan Hollywood Memphis Chicago Detroit Boston Dallas Nevada
	Montana Siberia Sahara Patagonia Tangier Bangkok Saigon Kyoto Seoul Delhi Lagos Nairobi Dublin Glasgow Oslo Prague
	Warsaw Athens Naples Sicily Provence Tuscany Macau Rio Kansas Vermont`)

var titleVerbs = fields(`Knew Stayed Fell Waited Sang Ran Lied Danced Stole Forgot Returned Vanished Dreamed Watched Listened`)

var titleNumbers = fields(`Two Three Four Five Seven Ten Twelve Twenty Hundred Thousand`)

// People's names: first names and surnames with uneven frequencies.
var firstNames = fields(`James John Robert Michael William David Richard Joseph Thomas Charles Christopher Daniel Matthew
	Anthony Mark Donald Steven Paul Andrew Joshua Kenneth Kevin Brian George Timothy Ronald Edward Jason Jeffrey Ryan
	Jacob Gary Nicholas Eric Jonathan Stephen Larry Justin Scott Brandon Benjamin Samuel Gregory Alexander Patrick Frank
	Raymond Jack Dennis Jerry Tyler Aaron Jose Adam Nathan Henry Douglas Zachary Peter Kyle Noah Ethan Jeremy Walter
	Christian Keith Roger Terry Austin Sean Gerald Carl Harold Dylan Arthur Lawrence Jordan Jesse Bryan Billy Bruce
	Gabriel Joe Logan Alan Juan Albert Willie Elijah Wayne Randy Vincent Mason Roy Ralph Bobby Russell Bradley Philip
	Eugene Mary Patricia Jennifer Linda Elizabeth Barbara Susan Jessica Sarah Karen Lisa Nancy Betty Sandra Margaret
	Ashley Kimberly Emily Donna Michelle Carol Amanda Melissa Deborah Stephanie Dorothy Rebecca Sharon Laura Cynthia Amy
	Kathleen Angela Shirley Brenda Emma Anna Pamela Nicole Samantha Katherine Christine Helen Debra Rachel Carolyn Janet
	Maria Catherine Heather Diane Olivia Julie Joyce Victoria Ruth Virginia Lauren Kelly Christina Joan Evelyn Judith
	Andrea Hannah Megan Cheryl Jacqueline Martha Madison Teresa Gloria Sara Janice Ann Kathryn Abigail Sophia Frances
	Jean Alice Judy Isabella Julia Grace Amber Denise Danielle Marilyn Beverly Charlotte Natalie Theresa Diana Brittany
	Doris Kayla Alexis Lori Marie Pierre Jean-Luc Hans Giulia Marco Yuki Hiroshi Akira Priya Arjun Raj Ingrid Lars
	Sven Olga Dmitri Ivan Carmen Pedro Luis Sofia Mateo Chen Wei Mei Kenji Ama Kwame Fatima Omar Leila Amir`)

var lastNames = fields(`Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez Gonzalez
	Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White Harris Sanchez Clark Ramirez Lewis
	Robinson Walker Young Allen King Wright Scott Torres Nguyen Hill Flores Green Adams Nelson Baker Hall Rivera
	Campbell Mitchell Carter Roberts Gomez Phillips Evans Turner Diaz Parker Cruz Edwards Collins Reyes Stewart Morris
	Morales Murphy Cook Rogers Gutierrez Ortiz Morgan Cooper Peterson Bailey Reed Kelly Howard Ramos Kim Cox Ward
	Richardson Watson Brooks Chavez Wood James Bennett Gray Mendoza Ruiz Hughes Price Alvarez Castillo Sanders Patel
	Myers Long Ross Foster Jimenez Powell Jenkins Perry Russell Sullivan Bell Coleman Butler Henderson Barnes Gonzales
	Fisher Vasquez Simmons Romero Jordan Patterson Alexander Hamilton Graham Reynolds Griffin Wallace Moreno West Cole
	Hayes Bryant Herrera Gibson Ellis Tran Medina Aguilar Stevens Murray Ford Castro Marshall Owens Harrison Fernandez
	McDonald Woods Washington Kennedy Wells Vargas Henry Chen Freeman Webb Tucker Guzman Burns Crawford Olson Simpson
	Porter Hunter Gordon Mendez Silva Shaw Snyder Mason Dixon Munoz Hunt Hicks Holmes Palmer Wagner Black Robertson
	Boyd Rose Stone Salazar Fox Warren Mills Meyer Rice Schmidt Garza Daniels Ferguson Nichols Stephens Soto Weaver
	Ryan Gardner Payne Grant Dunn Kelley Spencer Hawkins Arnold Pierce Hansen Peters Santos Hart Bradley Knight
	Elliott Cunningham Duncan Armstrong Hudson Carroll Lane Riley Andrews Ray Berry Perkins Hoffman Johnston Matthews
	Dubois Moreau Laurent Rossi Bianchi Romano Tanaka Suzuki Sato Yamamoto Kapoor Sharma Singh Nakamura Larsen
	Johansson Lindqvist Petrov Ivanova Kowalski Novak O'Brien O'Connor MacLeod Van_der_Berg De_Luca D'Amico St._Clair`)

var genreNames = []string{"Drama", "Comedy", "Thriller", "Action", "Romance", "Crime", "Horror", "Adventure",
	"Documentary", "Science Fiction", "Fantasy", "Mystery", "Family", "Animation", "War", "Biography", "History",
	"Musical", "Western", "Sport", "Music", "Film Noir", "Martial Arts", "Disaster", "Silent Film"}

var genreWeights = []float64{60, 25, 15, 13, 11, 9, 8, 7, 6, 5, 4.5, 4, 3.5, 3, 2.5, 2.2, 2, 1.6, 1.4, 1.1, 1, 0.6, 0.5, 0.3, 0.15}

var languageNames = []string{"English", "French", "Spanish", "Hindi", "Japanese", "German", "Italian", "Korean",
	"Mandarin", "Cantonese", "Russian", "Tamil", "Portuguese", "Swedish", "Telugu", "Danish", "Turkish", "Persian",
	"Polish", "Dutch", "Greek", "Hebrew", "Arabic", "Thai", "Czech", "Hungarian", "Finnish", "Norwegian", "Icelandic", "Maori"}

var languageWeights = []float64{55, 7, 6, 5, 4.5, 4, 3.5, 3, 2.5, 1.5, 1.5, 1.2, 1.2, 1, 0.9, 0.7, 0.6, 0.6, 0.5,
	0.45, 0.35, 0.3, 0.3, 0.25, 0.2, 0.15, 0.12, 0.1, 0.06, 0.05}

// Base tags; more are made by combining tagModifiers and tagHeads.
var baseTags = lines(`
	time travel
	heist
	revenge
	based on novel
	dystopia
	coming of age
	serial killer
	world war ii
	road trip
	small town
	high school
	haunted house
	artificial intelligence
	zombies
	vampires
	aliens
	space travel
	boxing
	football
	baseball
	chess
	cooking
	jazz
	hip hop
	ballet
	opera
	mafia
	drug cartel
	prison break
	courtroom
	bank robbery
	kidnapping
	amnesia
	twins
	divorce
	adoption
	single mother
	first love
	unrequited love
	love triangle
	wedding
	funeral
	christmas
	halloween
	summer camp
	college
	journalism
	politics
	election
	espionage
	cold war
	nuclear war
	pandemic
	climate change
	natural disaster
	shipwreck
	mountain climbing
	survival
	desert island
	jungle
	arctic
	submarine
	pirates
	samurai
	ninja
	cowboys
	gold rush
	civil war
	vietnam war
	slavery
	immigration
	racism
	feminism
	lgbt
	friendship
	brotherhood
	father son relationship
	mother daughter relationship
	sibling rivalry
	family secrets
	inheritance
	con artist
	hitman
	corrupt cop
	undercover cop
	detective
	whodunit
	psychological
	nonlinear timeline
	unreliable narrator
	based on true story
	biopic
	remake
	found footage
	mockumentary
	black and white
	stop motion
	musical numbers
	dance
	robots
	superhero
	magic
	witches
	dragons
	fairy tale
	talking animals
	dogs
	cats
	horses
	sharks
	dinosaurs
	monsters
	ghosts
	demons
	cults
	religion
	faith
	addiction
	alcoholism
	mental illness
	cancer
	disability
	blindness
	deafness
	old age
	midlife crisis
	loneliness
	grief
	suicide
	redemption
	betrayal
	greed
	obsession
	jealousy
	fame
	hollywood
	music industry
	fashion
	art forgery
	museum
	library
	bookstore
	restaurant
	hotel
	train
	airplane
	car chase
	motorcycles
	racing
	surfing
	skiing
	hacking
	social media
	video games
	virtual reality
	clones
	genetic engineering
	parallel universe
	time loop
	end of the world
	post apocalyptic
	island
	new york city
	paris
	london
	tokyo
	mumbai
	rome`)

var tagModifiers = fields(`secret forbidden lost stolen ancient haunted broken missing rival hidden toxic family cursed fake last`)
var tagHeads = fields(`treasure letter identity diary painting formula island city village kingdom recipe map manuscript
	weapon experiment inheritance love child fortune crown tape photograph song melody contract witness
	confession prophecy curse bargain voyage marriage`)
