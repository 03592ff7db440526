"""WRONG_LANGUAGE: the answer is in another language than the message it answers.

Languages are detected by lingua (high-accuracy mode, made for short text) on prose only:
code, links, mentions and URLs are left out. Precision comes first, since a false alarm
costs a retry of a good answer: the rule fires only when the answer is long enough and
clearly in one language, the message gives that language next to no chance (technical
questions mix English words into every language) and is clearly in another, nothing in
the message asks for a language or a translation, and no recent turn of the thread is in
the answer's language (the conversation may have switched).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence

from lingua import Language, LanguageDetector, LanguageDetectorBuilder

from app.verify.scan import BARE_URL, MASK, scan

LANGUAGES = (
    Language.ENGLISH,
    Language.GERMAN,
    Language.FRENCH,
    Language.SPANISH,
    Language.PORTUGUESE,
    Language.ITALIAN,
    Language.DUTCH,
    Language.POLISH,
    Language.SWEDISH,
    Language.TURKISH,
    Language.RUSSIAN,
    Language.UKRAINIAN,
    Language.JAPANESE,
    Language.CHINESE,
    Language.KOREAN,
)
ANSWER_LETTERS = 40  # fewer letters of prose: too little to tell ("42.", "8080.", a command)
MESSAGE_LETTERS = 12
ANSWER_CONFIDENCE = 0.7  # lingua's confidences of all languages sum to 1
MESSAGE_CONFIDENCE = 0.5
# The message's confidence in the answer's language: below PLAUSIBLE it is not the
# message's language if another is clear (MESSAGE_CONFIDENCE); below RULED_OUT it is not,
# whatever else the message may be (an English question to a Japanese answer).
PLAUSIBLE = 0.1
RULED_OUT = 0.01
KNOWN = 0.2  # a message no known language reaches is in one the rule cannot judge
THREAD_TURNS = 6  # the latest turns whose languages the answer may follow
SAMPLE = 200  # characters of prose enough to tell a language (detection time grows with it)

_SURROGATE = re.compile("[\ud800-\udfff]")  # not text: the detector cannot take them
_SHORTCODE = re.compile(r":[a-z0-9_+-]+:")
_LETTER = re.compile(r"[^\W\d_]")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
# A message that asks for a translation may want any language back; one that names
# languages, those: word stems ("englisch" also finds "Englischen"), in the languages the
# detector knows.
_TRANSLATE = (
    "translat übersetz tradu vertaal tłumacz översätt çevir перевод перевед 翻訳 翻译 번역".split()
)
_NAMED_BY: dict[Language, str] = {
    Language.ENGLISH: (
        "english englisch anglais ingles inglés inglês inglese engels angielsk "
        "engelska ingilizce английск 英語 英文 英语 영어"
    ),
    Language.GERMAN: (
        "german deutsch allemand aleman alemán alemão tedesco duits niemieck "
        "tysk almanca немецк ドイツ語 德语 독일어"
    ),
    Language.FRENCH: (
        "french französisch francais français frances francés francês francese "
        "frans francusk franska fransızca французск フランス語 法语 프랑스어"
    ),
    Language.SPANISH: (
        "spanish spanisch espagnol espanol español espanhol spagnolo spaans "
        "hiszpańsk spanska ispanyolca испанск スペイン語 西班牙语 스페인어"
    ),
    Language.PORTUGUESE: (
        "portugu portoghese portugees portugalsk portekizce португальск ポルトガル語 "
        "葡萄牙语 포르투갈어"
    ),
    Language.ITALIAN: (
        "italian italien italiano italiaans włosk italyanca итальянск イタリア語 "
        "意大利语 이탈리아어"
    ),
    Language.DUTCH: (
        "dutch niederländisch holländisch néerlandais neerland holand olandese "
        "nederlands niderlandzk holendersk felemenkçe нидерландск голландск "
        "オランダ語 荷兰语 네덜란드어"
    ),
    Language.POLISH: (
        "polish polnisch polonais polaco polonês polacco polsk lehçe польск "
        "ポーランド語 波兰语 폴란드어"
    ),
    Language.SWEDISH: (
        "swedish schwedisch suédois sueco svedese zweeds szwedzk svensk isveççe "
        "шведск スウェーデン語 瑞典语 스웨덴어"
    ),
    Language.TURKISH: (
        "turkish türkisch turc turks turecki turkiska türkçe турецк トルコ語 土耳其语 터키어"
    ),
    Language.RUSSIAN: (
        "russian russisch russe ruso russo rosyjsk ryska rusça русск ロシア語 俄语 러시아어"
    ),
    Language.UKRAINIAN: (
        "ukrain ucrain oekraïens ukraiń ukrayn украин україн ウクライナ語 乌克兰语 우크라이나어"
    ),
    Language.JAPANESE: "japan japon giappon japoń японск 日本語 日语 일본어",
    Language.CHINESE: (
        "chinese chinesisch chinois chino chinês cinese chinees chińsk "
        "kinesiska çince китайск 中国語 中文 汉语 중국어"
    ),
    Language.KOREAN: (
        "korean koreanisch coréen coreano koreaans koreańsk koreanska korece "
        "корейск 韓国語 韩语 한국어"
    ),
}


def _stems(words: Sequence[str]) -> re.Pattern[str]:
    """Stems start a word ("englisch", "Englischen"); words of scripts written without
    spaces stand anywhere."""
    return re.compile(
        "|".join(word if word[0] >= "\u3040" else rf"(?<!\w){re.escape(word)}" for word in words),
        re.IGNORECASE,
    )


_TRANSLATION = _stems(_TRANSLATE)
_NAMED = {language: _stems(words.split()) for language, words in _NAMED_BY.items()}
_ANY_NAMED = _stems([w for words in _NAMED_BY.values() for w in words.split()])


@functools.cache
def detector() -> LanguageDetector:
    """The detector, built once; its language models load the first time they are needed
    (call once at start-up so the first message does not wait for them)."""
    return LanguageDetectorBuilder.from_languages(*LANGUAGES).build()


def warm() -> None:
    """Load every language model now (2–3 s, about 300 MB), so that no answer's check
    waits for them on the event loop."""
    detector().compute_language_confidence_values("warm up the models, bitte, s'il vous plaît")
    for sample in ("Привет, как дела?", "こんにちは、元気ですか", "你好，你好吗", "안녕하세요"):
        detector().compute_language_confidence_values(sample)


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
    if _letters(answer) < ANSWER_LETTERS:
        return False
    answered = _clearly(answer, ANSWER_CONFIDENCE)
    if answered is None or allows(message, answered):
        return False
    asked = _prose_of(message)
    if _letters(asked) < MESSAGE_LETTERS and thread:  # "und für prod?": with what it follows
        asked = _prose_of(f"{message}\n{thread[-1]}")
    if _letters(asked) < MESSAGE_LETTERS:
        return False
    values = _confidences(asked)
    chance, best = values.get(answered, 0.0), max(values.values(), default=0.0)
    if best < KNOWN:  # a language the detector does not know (Arabic, Hebrew, …)
        return False
    if chance >= PLAUSIBLE or (chance >= RULED_OUT and best < MESSAGE_CONFIDENCE):
        return False
    own = set(thread if theirs is None else theirs)
    return not any(_follows(turn, answered, turn in own) for turn in thread[-THREAD_TURNS:])


@functools.lru_cache(maxsize=256)
def asks_for_language(text: str) -> bool:
    """Whether `text` names a language or asks for a translation."""
    return _TRANSLATION.search(text) is not None or _ANY_NAMED.search(text) is not None


@functools.lru_cache(maxsize=256)
def allows(text: str, language: Language) -> bool:
    """Whether `text` asks for a translation (any language may come back) or names
    `language`: naming one language is not a request for another."""
    return _TRANSLATION.search(text) is not None or _NAMED[language].search(text) is not None


@functools.lru_cache(maxsize=256)
def _prose_of(text: str) -> str:
    """The prose of a message or turn as written (cached: each attempt at a message, and
    each later message of its thread, reads the same turns again)."""
    return prose(scan(text).masked)


def prose(masked: str) -> str:
    """The first words of a masked text (up to SAMPLE characters): no code, entities, URLs or
    emoji shortcodes. Read from a window of the text, so a long answer costs no more."""
    text = " ".join(masked[: SAMPLE * 4].replace(MASK, " ").split())
    text = _SURROGATE.sub(" ", text)
    return _SHORTCODE.sub(" ", BARE_URL.sub(" ", text))[:SAMPLE]


@functools.lru_cache(maxsize=256)
def _confidences(text: str) -> Mapping[Language, float]:
    """Each language's confidence for a message. Cached: every attempt at a message, and
    every later message of its thread, asks again about the same text."""
    return {c.language: c.value for c in detector().compute_language_confidence_values(text)}


def _clearly(text: str, confidence: float) -> Language | None:
    values = detector().compute_language_confidence_values(text)
    if values and values[0].value >= confidence:
        return values[0].language
    return None


def _follows(turn: str, language: Language, asker: bool) -> bool:
    """Whether an earlier turn is in `language` (or, the asker's, asked for languages): the
    answer may then follow the conversation rather than the latest message."""
    if asker and allows(turn, language):
        return True
    words = _prose_of(turn)
    if _letters(words) < MESSAGE_LETTERS:
        return False
    return _confidences(words).get(language, 0.0) >= MESSAGE_CONFIDENCE


def _letters(text: str) -> int:
    """Letters, a character of Chinese, Japanese or Korean counting three: one carries a
    syllable or a word, so 14 of them are a sentence (and their script tells the detector
    what it is from little text)."""
    return len(_LETTER.findall(text)) + 2 * len(_CJK.findall(text))
