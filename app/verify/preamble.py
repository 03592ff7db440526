"""NO_CONTENT: a draft that is only a preamble or filler ("Sure! Here are the steps:") with
no answer after it, as a model writes when it stops right after its opener.

A draft has content when anything is left once its sentences of courtesy ("Sure!", "Great
question.") and of promise ("Let me explain.", "Here is what you need:") are set aside: a
word of an answer, a code span, a link or a mention. A short draft that ends on a colon,
or that states no fact and ends on a hand or arrow pointing down or an hourglass,
promises what never comes, in any language. So does a draft of headings alone, or of bold
titles that name the question's subject ("*Urlop na żądanie*"), and, in reply to a
question, one of emoji alone (but 👍 or ✅, which say yes).

Beyond the phrase lists, a short reply to a question is filler when every sentence is,
by the lists or by a small model of filler sentences (`filler.py`: greetings, thanks,
empathy, a promise to look, a plan, "it depends", a closing offer, in 19 languages), no
sentence holds a fact, a quote or a list, the reply takes up no word of the question,
and the question asks for no words to say or send (then courtesy may be the answer).
"""

from __future__ import annotations

import functools
import re

from app.verify import filler
from app.verify.figures import claims
from app.verify.language import asks_for_language
from app.verify.length import QUESTION_MARK, ask_of
from app.verify.scan import (
    BARE_URL,
    CLOSING_MARKS,
    EMOJI,
    MASK,
    QUOTED,
    Layout,
)
from app.verify.topic import content_terms

SHORT = 300  # characters: a longer draft that ends on a colon is an answer, cut or not
LONG = 1500  # characters: more than any preamble; such a draft has content
_SENTENCES = re.compile(r"[^.!?。！？:：;\n…]+[.!?。！？:：;…]*")
# What a short draft ends on when it promises more to follow, in any language: a colon;
# or, in a draft that states no fact (below), a hand or an arrow pointing down, an
# hourglass (wait), as characters or as Slack's shortcodes. Not an ellipsis: chat answers
# trail off after the fact ("Sí, se levanta solo, no tienes que hacer nada…").
_COLON_END = re.compile(r"[:：]\s*$")
_MORE_TO_FOLLOW = re.compile(
    "(?:[\U0001f447\u2b07\u2935\u23f3\u231b][\U0001f3fb-\U0001f3ff]?\ufe0f?"
    "|:(?:point_down|arrow_down|arrow_heading_down|hourglass|hourglass_flowing_sand):"
    "(?::skin-tone-[2-6]:)?)\\s*$"
)
# A fact an answer trailing off may still state: a digit, or a technical name (an acronym,
# a CamelCase or dotted name: "it might be the DNS cache...", "JSON, YAML, etc...")
_FACT = re.compile(r"\d|\b[A-Z]{2,}|\b[A-Za-z]+[a-z][A-Z]|\w[._/]\w")

# Courtesy that can open any answer: it answers nothing. ("Yes", "No", "OK" answer questions.)
_COURTESY = (
    r"sure(?: thing)?|absolutely|certainly|of course|definitely|happy to help|glad to help|"
    r"(?:a )?(?:great|good|excellent) question|no problem|great|perfect|got it|"
    r"thanks(?: for asking)?|thank you(?: for asking)?|"
    r"i(?:'d| would|'m| am) (?:be )?(?:happy|glad) to help(?: you)?(?: with (?:that|this))?|"
    r"klar|gerne|natürlich|sicher|gute frage|kein problem|"
    r"bien sûr|absolument|certainement|avec plaisir|bonne question|volontiers|"
    r"claro|por supuesto|con gusto|buena pregunta|desde luego|com certeza|boa pergunta|"
    r"certo|certamente|volentieri|ottima domanda|buona domanda|"
    r"natuurlijk|zeker|goede vraag|oczywiście|jasne|dobre pytanie|"
    r"självklart|absolut|visst|tabii|tabii ki|elbette|конечно|разумеется|хороший вопрос|"
    r"もちろん(?:です)?|承知しました|かしこまりました|いい質問(?:です)?(?:ね)?|"
    r"当然|好的|没问题|好问题|물론(?:입니다|이죠)?|좋은 질문(?:입니다|이에요)?"
)
# Lead-ins to an answer that should follow them ("Here is what you need:").
_LEAD_IN = (
    r"here(?:'s| is| are)|below (?:is|are)|the following|as follows|"
    r"hier (?:ist|sind)|im folgenden|folgende|voici|voilà|ci-dessous|les étapes suivantes|"
    r"aquí (?:tienes|está|están|va|van)|a continuación|aqui (?:está|estão|vai)|a seguir|"
    r"ecco|di seguito|hier (?:is|zijn)|hieronder|oto|poniżej|här är|nedan|işte|aşağıda|"
    r"вот|ниже"
)
# The same in scripts written without spaces between words: no word boundaries there.
_LEAD_IN_CJK = r"以下|下記|下面|如下|请看|다음은|아래"
# What a lead-in promises when no colon follows it: "Here's what…", "Voici comment…".
_PROMISED = (
    r"what|how|everything|all you|a few|some|the steps|a step|an overview|a quick|a short|"
    r"a summary|a breakdown|was|wie|alles|ce que|comment|tout ce|lo que|cómo|todo lo|o que|"
    r"como|tudo|cosa|come|tutto|wat|hoe|alles|co|jak|vad|hur|ne|nasıl|что|как|всё|все"
)
# Promises to explain, wherever they stand in a short sentence.
_PROMISE_VERB = (
    r"let me (?:explain|walk|go through|break|show|take you|outline)|"
    r"let's (?:go through|walk through|break|take a look|dive|look at (?:it|this)|unpack)|"
    r"allow me to|i(?:'ll| will| can) (?:explain|walk|show|break|go through|outline)|"
    r"ich erkläre|ich zeige|lass mich|lass uns (?:das )?(?:\w+ )?durchgehen|"
    r"je vous explique|je t'explique|laissez-moi|"
    r"te explico|le explico|déjame|vamos a verlo|vou (?:te |lhe )?explicar|"
    r"deixe-me|ti spiego|lascia(?:mi)? che|ik leg|wyjaśnię|"
    r"jag förklarar|açıklayayım|объясню|давайте разбер"
)
_PROMISE_VERB_CJK = (
    r"説明します|示します|ご説明|順を追って|我来解释|我来说明|我来介绍|드릴게요|드리겠습니다"
)
_COURTESY_RUN = re.compile(rf"\W*(?:(?:{_COURTESY})\b\W*)*", re.IGNORECASE)
_LEAD = re.compile(rf"(?:(?:{_LEAD_IN})(?![\w'])|{_LEAD_IN_CJK})\s*", re.IGNORECASE)
_PROMISED_START = re.compile(rf"(?:{_PROMISED})(?![\w'])", re.IGNORECASE)
_VERB = re.compile(rf"(?<![\w'])(?:{_PROMISE_VERB})|{_PROMISE_VERB_CJK}", re.IGNORECASE)
LEAD_IN_WORDS = 16  # a lead-in sentence longer than this says something
LATE_PROMISE_WORDS = 20
# Not an answer either: headings (a title line) and emoji.
_TITLE_LINE = re.compile(r"^[ \t]*(?:#{1,6}[ \t]+[^\n]*|\*{1,2}[^*\n]{1,60}\*{1,2}[ \t]*)$", re.M)

_ANY_WORD = re.compile(r"[^\W_]")  # a letter or a digit
# Emoji that answer yes or no, or that something is done
_AFFIRMING = re.compile(
    "[\U0001f44d\U0001f44e\u2705\u274c\u2714\u2716\u2611\U0001f44c\U0001f197]"
    r"|:(?:\+1|-1|thumbsup|thumbsdown|white_check_mark|heavy_check_mark|ballot_box_with_check"
    r"|x|ok_hand|ok):"
)
_TITLE_MARKS = re.compile(r"[#*_~]+")
_BOLD_LINE = re.compile(r"^[ \t]*[*_~]", re.M)  # a title line not a heading
_INNER_MARK = re.compile(r"[,:;—–-]\s|[，：；、]")  # a clause: an answer, not a title
_SENTENCE_END = re.compile(r"[.!?。！？]\s*$|[.!?。！？]\s*\n")
# A draft of sentences the filler model (`filler.py`) judges: in reply to a question, of
# FILLER_DRAFT_LETTERS to FILLER_LONG characters ("Okay, Berlin then.", "맞습니다." are
# answers too short to tell from "Hey! 👋"), with no quote, list or fact. A sentence is
# judged where the model knows FILLER_KNOWN of its runs of characters (not in a script it
# was not taught); it is filler above FILLER_THRESHOLD, a log-odds that 2 in 100 of the
# hard content sentences it learnt from pass in cross-validation and 42 in 100 filler
# sentences (`python -m bench.filler`), and only if each of its clauses is too, above
# FILLER_CLAUSE_THRESHOLD: "I checked, it's the proxy" is a finding after a filler clause.
# A sentence or clause of fewer than FILLER_LETTERS letters needs FILLER_SHORT_THRESHOLD:
# "Yes.", "Tak." and "Tuesday." are answers barely longer than "Hi!" (1 in 100 terse
# answers pass it, 25 in 100 greetings). Letters are counted as sounds: a kana or Hangul
# syllable counts two, a Han character three.
FILLER_LONG = 400
FILLER_DRAFT_LETTERS = 30
FILLER_LETTERS = 12
FILLER_THRESHOLD = 1.0
FILLER_CLAUSE_THRESHOLD = 0.5
FILLER_SHORT_THRESHOLD = 2.0
FILLER_KNOWN = 0.6
_LETTER = re.compile(r"[^\W\d_]")  # a letter: of a sentence, or outside quotation marks
_SYLLABLE = re.compile("[\u3040-\u30ff\uac00-\ud7af]")
_HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff]")
STEM = 5
_LONG_WORD = re.compile("[^\\W\\d_\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]{4,}")
_CJK_PAIR = re.compile("(?=[\u30a0-\u30ff\u3400-\u9fff\uac00-\ud7af]{2})")
_CLAUSE = re.compile(r"[^,，、;；—–]+")
# A message that asks for words to say or send: a reply, a message, a card, an
# announcement, or how to word one. The answer is then made of courtesy ("Thank him first
# and show you understand", "Merci pour votre message. Je suis absent …"), which is the
# answer, not filler: the model does not judge it. Stems, at the start of a word, in the
# languages the model was taught (a guard for precision: what it misses, the judge sees).
_WORDING_STEMS = (
    "write wrote draft compose wording phrase reply replie respond say tell messag email "
    "e-mail note card announc template out-of-office "
    "schreib formulier antwort sag nachricht e-mail karte entwurf vorlage abwesenheit "
    "écri ecri rédig redig répond repond répons repons dire dis message courriel carte "
    "modèle "
    "escrib redact respond contest decir diga mensaje correo tarjeta plantilla "
    "escrev redig diz digo respost mensagem cartão modelo "
    "scriv rispond rispost dire dico messaggio biglietto modello "
    "schrijf formuleer antwoord zeg bericht kaart sjabloon "
    "napisz napisa pisa sformułuj odpowiedz odpowiedzie odpisa powiedz wiadomo kartk szablon "
    "skriv formul svar säg meddelande mejl mall melding e-post besked skabelon "
    "yazayım yazmam yazsam yazabil yazar mısın cevap cevab yanıt söyle mesaj e-posta metin "
    "şablon "
    "napiš napsat odpověz odpovědě řekn říct zpráv přání šablon napíš napísať odpovedz "
    "povedz správu správa "
    "напиш написа сформулир ответить ответь ответа ответом отвеч сказа скаж сообщен письм "
    "открытк шаблон "
    "відповісти відповідь відповідати сказа повідомлен листа листом листівк "
)
_WORDING = re.compile(
    rf"(?<![\w'])(?:{'|'.join(map(re.escape, _WORDING_STEMS.split()))})"
    "|書い|書く|書き|文面|返信|返事|言え|言う|伝え|メッセージ|メール|文章|例文|テンプレ"
    "|怎么写|写一|写个|写封|回复|回信|怎么说|说什么|贺卡|文案|措辞|模板"
    "|써 줘|써줘|써 줄|작성|답장|답변|말하|뭐라고|메시지|문구|템플릿",
    re.IGNORECASE,
)
_QUOTE_OR_LIST = re.compile(r"^[ \t]*(?:>|&gt;|[-*•+][ \t]|\d+[.)][ \t])", re.M)
ECHO_WORDS = 3  # words of a title, at least, to tell it names the question's subject
ECHO_SHARE = 0.6  # of a title's words found in the question


def no_content(layout: Layout, question: str = "") -> bool:
    """Whether the draft is only courtesy and promises of an answer that never comes, a
    title over nothing, or emoji in reply to a question."""
    if MASK in layout.masked or len(layout.masked) > LONG:  # code, a link, a mention, or a lot
        return False
    bare = EMOJI.sub("", layout.masked)  # "**Müşteri sözleşme şablonları** 📄" is a title
    if bare.strip() and not _TITLE_LINE.sub("", bare).strip() and _titled(bare, question):
        return True
    untitled = _TITLE_LINE.sub("", layout.masked)
    written = untitled if untitled.strip() else layout.masked
    prose = EMOJI.sub(" ", written)
    if EMOJI.search(written) and _asks(question) and _emoji_say_nothing(written, prose):
        return True
    unquoted = QUOTED.sub(" ", prose)
    closed = prose.rstrip(CLOSING_MARKS + " \t\n")  # "Sure! Here are the steps:" ends open
    if unquoted != prose and not _LETTER.search(unquoted) and not _COLON_END.search(closed):
        return False  # all in quotation marks: a translation, a text to send, not a promise
    sentences = [s.strip() for s in _SENTENCES.findall(prose) if s.strip(" \t\n:：…")]
    if len(prose) <= SHORT and len(sentences) <= 2 and _ends_open(prose, written):
        return True
    kinds = [_kind(sentence) for sentence in sentences]
    promised = bool(kinds) and None not in kinds and "promise" in kinds
    return promised or _filler_only(layout.masked, question, sentences, kinds)


def _filler_only(masked: str, question: str, sentences: list[str], kinds: list[str | None]) -> bool:
    """Whether a short reply to a question is filler in every sentence, by the phrase
    lists or by the model, and is not courtesy alone ("Sure thing!", "Of course.": a
    yes). A reply that takes up a word of the question may be its answer, however
    courteous; it is left to the judge, with the restated questions it lets through.
    (The cheap tests first: most short answers state a fact.)"""
    if not sentences or len(masked) > FILLER_LONG or _QUOTE_OR_LIST.search(masked):
        return False
    judged = [sentence for sentence, kind in zip(sentences, kinds, strict=True) if kind is None]
    if not judged or any(_FACT.search(s) or QUOTED.search(s) for s in judged):
        return False  # courtesy alone (a yes), or a fact
    said = " ".join(sentences)
    if _letters(said) < FILLER_DRAFT_LETTERS:
        return False
    if not _asks(question) or _asks_for_words(question):
        return False  # the words asked for may be courtesy: the judge's
    if _stems(said) & _asked_stems(question):
        return False  # "Can I reach out?" "Reach out anytime, happy to help.": the judge's
    return all(_filler(sentence) for sentence in judged)


@functools.lru_cache(maxsize=256)  # a message's attempts ask the same
def _asks_for_words(question: str) -> bool:
    """Whether a message asks for words to say or send, a translation among them
    (`language.asks_for_language`, which WRONG_LANGUAGE reads the same way)."""
    return _WORDING.search(ask_of(question)) is not None or asks_for_language(question)


@functools.lru_cache(maxsize=256)
def _asked_stems(question: str) -> frozenset[str]:
    return frozenset(_stems(ask_of(question)))


def _filler(sentence: str) -> bool:
    """Whether the model reads a sentence as filler, and each of its clauses: one with no
    fact or quote (tested before), in a language it was taught."""
    if next(claims(sentence), None) is not None or filler.known(sentence) < FILLER_KNOWN:
        return False
    if not _scored_filler(sentence, FILLER_THRESHOLD):
        return False
    clauses = [clause for clause in _CLAUSE.findall(sentence) if _letters(clause)]
    return len(clauses) < 2 or all(
        _scored_filler(clause, FILLER_CLAUSE_THRESHOLD) for clause in clauses
    )


def _scored_filler(text: str, threshold: float) -> bool:
    """Whether the model scores a sentence or clause above a threshold: FILLER_SHORT_THRESHOLD
    when it is short."""
    letters = _letters(text)
    short = letters < FILLER_LETTERS
    return bool(letters) and filler.score(text) > (FILLER_SHORT_THRESHOLD if short else threshold)


def _stems(text: str) -> set[str]:
    """A text's words of four letters or more by their first five, and its runs of two
    kanji, katakana or Hangul syllables: what a reply takes up of a question ("reach out",
    "연락"), not its pronouns or endings ("ik", "ます")."""
    lowered = text.lower()
    words = {word[:STEM] for word in _LONG_WORD.findall(lowered)}
    return words | {lowered[m.start() : m.start() + 2] for m in _CJK_PAIR.finditer(lowered)}


def _letters(text: str) -> int:
    """A text's letters, a kana or Hangul syllable counting two and a Han character three."""
    letters = len(_LETTER.findall(text))
    if _SYLLABLE.search(text) is None and _HAN.search(text) is None:
        return letters
    return letters + len(_SYLLABLE.findall(text)) + 2 * len(_HAN.findall(text))


def _emoji_say_nothing(written: str, prose: str) -> bool:
    """Whether a draft is emoji alone that answer nothing (👍 and ✅ say yes; 👋 and 👀
    say nothing). A word beside them may be the answer ("Marta 👋")."""
    return _ANY_WORD.search(prose) is None and _AFFIRMING.search(written) is None


def _titled(titles: str, question: str) -> bool:
    """Whether a draft of titles alone names a subject and says nothing of it: no title
    ends a sentence, and either all are headings ("## VPN hemifrån": a heading is never an
    answer alone) or, for bold lines, which may be a terse answer ("**Room 4.12**", "*The
    Berlin office*", "*Remote work: no*"), none has a clause or states a fact and most of
    their words (at least three) are the question's ("*Richiesta carta carburante*"), as
    OFF_TOPIC reads words (`content_terms`: by their first letters, so "urlop" and
    "urlopu" meet; by pairs of characters in scripts without spaces)."""
    text = _TITLE_MARKS.sub(" ", titles)
    if _SENTENCE_END.search(text):
        return False
    if not _BOLD_LINE.search(titles):
        return True
    if _INNER_MARK.search(text) or _FACT.search(text) or next(claims(text), None):
        return False  # "*Remote work: no*", "**Yes, it is closed**": a terse answer
    words = content_terms(text)
    shared = words & content_terms(question)
    return len(words) >= ECHO_WORDS and len(shared) >= ECHO_SHARE * len(words)


def _asks(question: str) -> bool:
    """Whether a message asks something: a question mark in any script, in its own words
    (not in a URL or code)."""
    return QUESTION_MARK.search(BARE_URL.sub(" ", ask_of(question))) is not None


def _ends_open(prose: str, written: str) -> bool:
    """Whether a short draft ends on a colon (emoji set aside: "Here you go: 🎉"), or,
    stating no fact, on a sign that more is to follow."""
    if _COLON_END.search(prose):
        return True
    if _MORE_TO_FOLLOW.search(written) is None:
        return False
    return _FACT.search(prose) is None and next(claims(prose), None) is None


def _kind(sentence: str) -> str | None:
    """ "courtesy", "promise", or None for a sentence that says something."""
    opener = _COURTESY_RUN.match(sentence)
    rest = sentence[opener.end() :] if opener else sentence
    if not _trim(rest):
        return "courtesy"
    words = len(rest.split())
    lead = _LEAD.match(rest)
    if lead is not None and words <= LEAD_IN_WORDS:
        after = _trim(rest[lead.end() :])
        ends_open = rest.rstrip().endswith((":", "：", "…", "..."))
        if ends_open or not after or _PROMISED_START.match(after):
            return "promise"
    if words <= LATE_PROMISE_WORDS and _VERB.search(rest):
        return "promise"
    return None


def _trim(text: str) -> str:
    return text.strip(" \t\n.!?。！？:：;…—–-")
