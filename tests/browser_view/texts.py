"""Short texts written for this project, for the languages the chardet corpus lacks.

Plain prose about everyday things, a few sentences each: enough letters for a detector to
see the language's usual non-ASCII characters. The other languages' text comes from
``../shared/corpus/chardet`` (decoded with each file's true encoding at test time).
"""

from __future__ import annotations

TEXTS: dict[str, str] = {
    "fr": (
        "Le marché couvert ouvre à sept heures, et les premiers clients arrivent avant même que "
        "les étals soient prêts. On y trouve des fromages affinés, des légumes de saison et du "
        "pain encore tiède. Le boulanger, qui travaille ici depuis trente ans, connaît chacun par "
        "son prénom. « Ça fait du bien de parler un peu », dit-il en rendant la monnaie. L'été, "
        "les touristes s'arrêtent devant les pêches et les abricots ; l'hiver, ce sont les "
        "habitués qui reviennent chercher des châtaignes grillées et un café brûlant. Après "
        "midi, la halle se vide, les employés nettoient le sol à grande eau et tout recommence "
        "le lendemain."
    ),
    "es": (
        "La biblioteca del barrio abrió sus puertas en otoño, después de dos años de obras. "
        "Tiene una sala de lectura luminosa, un rincón para niños y ordenadores de uso gratuito. "
        "Los vecinos más mayores acuden por la mañana a leer el periódico; por la tarde llegan "
        "los estudiantes, que preparan sus exámenes en silencio. ¿Quién iba a pensar que un "
        "edificio tan viejo tendría una segunda vida? La directora explica que el año próximo "
        "habrá talleres de escritura, clases de español para recién llegados y una pequeña "
        "exposición sobre la historia de la ciudad. ¡Todos están invitados!"
    ),
    "it": (
        "Ogni domenica la piazza si riempie di bancarelle: libri usati, dischi in vinile, "
        "vecchie cartoline e qualche mobile d'epoca. Chi cerca un affare deve arrivare presto, "
        "perché le cose più belle spariscono entro le nove. Però anche chi non compra nulla si "
        "ferma volentieri al bar all'angolo, dove il caffè costa poco e la brioche è ancora "
        "calda. È un'abitudine che dura da più di quarant'anni e che nessuno, in città, "
        "vorrebbe perdere. Perfino il sindaco passa di qui, con il cane e il giornale sotto il "
        "braccio, e si lascia convincere a comprare un libro in più."
    ),
    "nl": (
        "In het voorjaar fietsen duizenden mensen langs de bollenvelden, die dan in felle "
        "kleuren bloeien. De route is ongeveer veertig kilometer lang en loopt door kleine "
        "dorpen met smalle straatjes en oude kerken. Onderweg kun je stoppen bij een boerderij "
        "voor verse appeltaart of een kop koffie. Wie niet zo'n geoefende fietser is, kan een "
        "kortere lus kiezen. Vergeet je regenjas niet: het weer verandert hier snel, en een "
        "zonnige ochtend kan zomaar eindigen in een flinke bui. Financiële steun van de "
        "gemeente zorgt ervoor dat de paden goed onderhouden worden en dat er genoeg "
        "fietsenstallingen zijn bij de musea."
    ),
    "sv": (
        "Sjön fryser oftast till i slutet av december, och när isen är tillräckligt tjock "
        "kommer skridskoåkarna. Det är en märklig känsla att glida fram över det svarta, "
        "blanka istäcket och höra hur det sjunger under skenorna. Många tar med sig termos och "
        "smörgåsar och stannar hela dagen. På våren, när isen har gått upp, återvänder "
        "fåglarna och stugorna längs stranden fylls av sommargäster. Kommunen påminner om att "
        "man alltid ska bära isdubbar och aldrig åka ensam, eftersom isen kan vara förrädisk "
        "nära bäckarnas mynningar."
    ),
    "da": (
        "Det lille bageri på hjørnet har bagt rugbrød efter den samme opskrift i over hundrede "
        "år. Om morgenen står der kø helt ud på fortovet, og duften af kanelsnegle og "
        "wienerbrød breder sig ned ad gaden. Ejeren fortæller, at hemmeligheden er tålmodighed: "
        "dejen skal hæve langsomt, gerne natten over. Om eftermiddagen kommer skolebørnene for "
        "at købe en bolle med smør, og om lørdagen sælges der også små lagkager med jordbær og "
        "flødeskum. Når butikken lukker, får den nærliggende suppekøkken resterne."
    ),
    "nb": (
        "Fjellturen startet ved et lite vann der tåka fortsatt lå tett over vannflaten. Stien "
        "gikk bratt oppover gjennom bjørkeskog før den åpnet seg mot et vidt landskap av lyng, "
        "stein og små myrer. Vi så reinsdyr på avstand og hørte lirypa rope i krattet. På "
        "toppen var det kaldt, selv om det var juli, så vi satte oss i le bak en varde og spiste "
        "matpakkene våre. Utsikten over fjorden og de snødekte tindene var verdt hvert eneste "
        "skritt. Ned igjen gikk det raskere, og på hytta ventet kaffe og vafler med brunost."
    ),
    "fi": (
        "Kesämökki sijaitsee järven rannalla, keskellä hiljaista mäntymetsää. Aamuisin vesi on "
        "tyyni kuin peili, ja kaukaa kuuluu vain kuikan huuto. Saunan lämmittäminen on "
        "päivän tärkein tehtävä: puut kannetaan liiteristä, ja kiuas saa kuumeta rauhassa. "
        "Löylyjen jälkeen hypätään järveen, joka on heinäkuussakin virkistävän viileä. "
        "Illalla grillataan makkaraa ja syödään uusia perunoita tillin kanssa. Yöt ovat "
        "niin valoisia, että kirjaa voi lukea ulkona vielä puoliltaöin, ja hyttyset pitävät "
        "huolen siitä, ettei kukaan nukahda laiturille."
    ),
    "is": (
        "Í gamla fiskiþorpinu búa nú færri en tvö hundruð manns, en á sumrin fyllist höfnin af "
        "bátum og ferðamönnum. Þeir koma til að sjá lundann, sem verpir í klettunum fyrir ofan "
        "bryggjuna, og til að ganga á fjallið þar sem útsýnið nær yfir allan fjörðinn. Í "
        "kaupfélaginu fæst harðfiskur, rúgbrauð og heit kjötsúpa. Á veturna er dimmt mestallan "
        "sólarhringinn, en þá dansa norðurljósin yfir þorpinu og íbúarnir hittast í "
        "félagsheimilinu til að syngja og spila."
    ),
    "lt": (
        "Senamiestyje kiekvieną rudenį vyksta amatų mugė, į kurią suvažiuoja meistrai iš visos "
        "šalies. Čia galima nusipirkti rankomis austų juostų, medinių šaukštų, gintaro "
        "papuošalų ir tikro kaimiško sūrio. Vaikai žiūri, kaip puodžius žiedžia molinius "
        "ąsočius, o kalvis kala pasagas. Vakare aikštėje groja liaudiška kapela, ir net "
        "vyresnio amžiaus žmonės neatsispiria šokiui. Organizatoriai džiaugiasi, kad kasmet "
        "lankytojų daugėja, nors oras spalio pabaigoje dažniausiai būna vėsus ir lietingas."
    ),
    "lv": (
        "Jūrmalas pludmale ir gara un smilšaina, un vasarā šeit atpūšas tūkstošiem cilvēku. "
        "Rītos krastā staigā makšķernieki, bet pēcpusdienā bērni būvē smilšu pilis un meklē "
        "dzintara gabaliņus. Priežu mežs aiz kāpām smaržo pēc sveķiem, un tajā ir daudz "
        "taku, pa kurām var braukt ar velosipēdu. Koka vasarnīcas ar izgrieztiem "
        "rotājumiem atgādina par laikiem, kad šurp brauca atpūsties no visas impērijas. "
        "Vakarā saule lēnām noslīd jūrā, un krasts kļūst kluss un mierīgs."
    ),
    "et": (
        "Saarel on vaid üks pood, üks kool ja üks kirik, kuid suvel elab siin palju rohkem "
        "inimesi kui talvel. Praam sõidab mandrile kaks korda päevas, tormiga mõnikord üldse "
        "mitte. Kohalikud kasvatavad lambaid, püüavad kala ja suitsutavad seda vanades "
        "ahjudes. Külaliste jaoks on kõige meeldejäävam jaanipäev, mil randa süüdatakse suur "
        "lõke ja lauldakse hommikuni. Öösel ei lähe päris pimedaks ning kajakad kisavad "
        "ööst läbi, nagu nad ei väsiks kunagi."
    ),
    "vi": (
        "Chợ nổi họp từ lúc trời còn tối, khi những chiếc thuyền chở đầy rau, trái cây và hàng "
        "hóa từ các làng ven sông đổ về. Người mua và người bán trao đổi ngay trên mặt nước, "
        "giơ cao cây sào treo mẫu hàng để khách nhìn thấy từ xa. Một bát hủ tiếu nóng hổi "
        "được bán ngay trên thuyền, và cà phê sữa đá là thứ không thể thiếu. Khi mặt trời lên "
        "cao, chợ tan dần, các thuyền quay về làng, để lại dòng sông yên ả cho đến sáng hôm "
        "sau."
    ),
    "uk": (
        "Щоранку на розі вулиці відчиняється маленька кав'ярня, де пахне свіжим хлібом і "
        "корицею. Її власниця, пані Оксана, сама пече пиріжки з вишнями та яблуками. Відвідувачі "
        "приходять не лише заради кави: тут завжди можна поговорити про новини, погоду чи "
        "футбол. Взимку біля вікна ставлять ялинку, а влітку столики виносять на тротуар, під "
        "старі каштани. Студенти з сусіднього університету кажуть, що це найзатишніше місце в "
        "місті, і часто готуються тут до іспитів."
    ),
    "ro": (
        "În fiecare toamnă, satul organizează o sărbătoare a recoltei, la care vin oameni din "
        "toată regiunea. Pe uliță se întind mese lungi cu plăcinte, brânză de burduf, must și "
        "țuică de prune. Copiii se întrec la jocuri tradiționale, iar bătrânii povestesc "
        "despre vremurile când se secera cu mâna. Seara, lăutarii cântă până târziu, și "
        "nimeni nu se grăbește să plece acasă. Primăria speră ca, anul viitor, să amenajeze "
        "și un mic muzeu al satului în fosta școală."
    ),
    "mt": (
        "Il-festa tar-raħal issir kull sena f'Awwissu, u n-nies jibdew iħejju ġimgħat qabel. "
        "It-toroq jitżejnu b'bandalori, dawl u statwi, u l-għaqdiet mużikali jdoqqu marċi "
        "ferrieħa sa nofs il-lejl. Fuq il-bankini jinbiegħu l-qubbajt, il-ħobż biż-żejt u "
        "l-pastizzi sħan. Il-ġenituri jieħdu lit-tfal jaraw il-murtali, filwaqt li x-xjuħ "
        "joqogħdu fuq il-bankijiet tal-pjazza jitkellmu fuq il-festi ta' żmien ilu."
    ),
    "cy": (
        "Mae'r pentref bach yn swatio ar waelod y cwm, ac mae'r afon yn llifo'n dawel heibio'r "
        "capel a'r hen felin. Bob dydd Sadwrn mae marchnad fach yn y sgwâr, lle mae ffermwyr "
        "lleol yn gwerthu wyau, mêl a chaws. Mae'r plant yn dysgu Cymraeg yn yr ysgol, ac yn "
        "yr haf mae'r eisteddfod leol yn denu cantorion a beirdd o bell. Ŵyr y ffermwr sy'n "
        "rhedeg y caffi erbyn hyn, ac mae ei fara brith yn enwog drwy'r sir. Ŷd a cheirch sy'n "
        "tyfu ar y llethrau uwchben y tŷ."
    ),
    "eo": (
        "Ĉiun someron, esperantistoj el la tuta mondo kunvenas por semajno da prelegoj, "
        "koncertoj kaj ekskursoj. Oni aŭdas la lingvon ĉie: en la manĝejo, sur la strato, eĉ "
        "en la naĝejo. Multaj partoprenantoj unuafoje renkontas homojn, kun kiuj ili "
        "korespondis dum jaroj. La programo ĉiam finiĝas per granda balo, kaj la adiaŭoj "
        "estas longaj kaj iom malĝojaj. Tamen ĉiu jam planas la sekvan vojaĝon, ĉar la "
        "venonta kongreso okazos en alia lando."
    ),
    "fa": (
        "بازار قدیمی شهر از صبح زود شلوغ می‌شود. فروشندگان ادویه، فرش، ظروف مسی و پارچه‌های "
        "رنگارنگ مغازه‌هایشان را باز می‌کنند و بوی زعفران و دارچین در راهروهای سرپوشیده "
        "می‌پیچد. مردم برای خرید، گفت‌وگو و نوشیدن چای به این‌جا می‌آیند. در روزهای پیش از "
        "نوروز، بازار از همیشه شلوغ‌تر است و خانواده‌ها برای سفره‌ی هفت‌سین سبزه، سیب و سکه "
        "می‌خرند. گردشگران هم عاشق معماری آجری و گنبدهای بلند آن هستند."
    ),
    "ar": (
        "يفتح السوق القديم أبوابه مع شروق الشمس، ويبدأ الباعة بعرض التوابل والتمور والأقمشة "
        "الملونة. يأتي الناس من القرى المجاورة لشراء حاجاتهم وتبادل الأخبار، ويجلس كبار السن "
        "في المقهى المجاور يشربون القهوة العربية ويلعبون النرد. في شهر رمضان يبقى السوق "
        "مفتوحا حتى ساعة متأخرة من الليل، وتزين الفوانيس الشوارع الضيقة. ويقول أحد التجار إن "
        "عائلته تبيع العطور في المكان نفسه منذ أكثر من مئة عام."
    ),
    "de": (
        "Der Wochenmarkt findet jeden Samstag auf dem Platz vor dem Rathaus statt. Schon früh "
        "am Morgen bauen die Händler ihre Stände auf: Äpfel aus dem Umland, frischer Käse, "
        "Blumen und Brötchen, die noch warm sind. Viele Kunden kommen seit Jahrzehnten und "
        "wissen genau, bei wem es die besten Kartoffeln gibt. Für Kinder gibt es ein kleines "
        "Karussell, und im Winter duftet es nach Glühwein und gebrannten Mandeln. Gegen Mittag "
        "wird es ruhiger, die Straßenkehrer räumen auf, und die Stadt gehört wieder den Tauben."
    ),
}
