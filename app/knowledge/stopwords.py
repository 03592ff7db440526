"""Words that do not make a passage relevant: the function words (articles, pronouns,
prepositions, conjunctions, auxiliaries, question words, greetings) of the languages Vouch
answers in (app/verify/language.py).

Why a list: in a small folder every word is rare, so "for" in "Cafeteria lunch menu for
Friday?" weighs as much as "backups" and matches a backups passage. BM25's idf only learns
that a word is common from a large folder. These words are left out of every query.

Why our own, short lists: the stop-word packages on PyPI are made for text mining, not for
search in engineering docs. Their English lists hold "page", "test", "fix", "index",
"system", "run", "open", "call", "help" — the very words on-call runbooks are about — and
some of their lists are mis-encoded. These hold function words only. A word here is a stop
word whatever the question's language (questions are short: their language is a guess), so
a word that is a function word in one language and a content word in another ("door" in
Dutch, "dir" in German, "min" in Swedish) is left out.

Chinese, Japanese and Korean are searched as character pairs: a pair is a stop pair when
both of its characters are hiragana (Japanese grammar: particles, verb endings), when both
are function characters of Chinese or particles of Korean, or when it is a pair of a
function word written here.
"""

from __future__ import annotations

WORDS: dict[str, str] = {
    "en": """
        a about above after again against all also am an and any anyone anything are as
        at be because been before being below between both but by can cannot could did do
        does doing done down during each either else ever every few for from further get
        gets got had has have having he her here hers herself him himself his how however
        i if in into is it its itself just let like me might mine more most much must my
        myself need needs no nor not now of off on once one only or other our ours
        ourselves out over own please same shall she should so some someone something such
        than thank thanks that the their theirs them themselves then there these they this
        those through to too under until up upon us very via was we were what whats when
        where whether which while who whom whose why will with within without would yes
        yet you your yours yourself yourselves hi hey hello ok okay anybody somebody
        know tell want wanted able
        doesn don isn aren wasn weren didn couldn wouldn shouldn hasn haven hadn won ll ve
        re
    """,
    "de": """
        aber alle allem allen aller alles als also am an andere anderen auch auf aus bei
        bin bis bist bitte da damit dann das dass dein deine dem den denn der des dich die
        dies diese diesem diesen dieser dieses doch dort du durch ein eine einem einen einer
        eines er es etwas euch euer für gegen gibt habe haben hat hatte ich ihm ihn ihnen
        ihr ihre im in ist ja jede jeder jetzt kann kannst kein keine können man mein meine
        mich mir mit muss müssen nach nicht nichts noch nun nur ob oder ohne sehr sein
        seine sich sie sind so soll sollte über um und uns unser unter vom von vor wann war
        warum was weil welche welcher welches wenn wer werde werden wie wieder wir wird wo
        wie zu zum zur
    """,
    "fr": """
        au aux avec ce ceci cela ces cet cette comment combien dans de des du elle elles en
        est et été être avoir ai as avez avons ont il ils je la le les leur leurs lui ma
        mais me mes moi mon ne nos notre nous on ou où par pas peut peux pour quand que quel
        quelle quelles quels qui quoi sa se ses si son sont sur ta te tes toi ton tu un une
        vos votre vous faut fait faire est-ce qu bonjour merci svp
    """,
    "es": """
        al algo como cómo con cual cuál cuales cuando cuándo cuanto cuánto de del donde
        dónde el él ella ellos en entre era es esa ese eso esta está están este esto estoy
        fue ha hay la las le les lo los más me mi mis muy no nos o para pero por puedo
        puede que qué quien quién se ser si sí sin sobre son su sus también te tengo tiene
        tu tus un una uno unos unas y ya yo hola gracias
    """,
    "pt": """
        ao aos as até com como da das de dela dele do dos e ela ele eles em entre era essa
        esse esta está estão este eu foi há isso isto já lhe mais mas me meu minha na nas
        não no nos nós o os ou para pela pelo pode posso por qual quando que quem se sem
        ser seu sua são também te tem tenho um uma você vocês olá obrigado obrigada onde
    """,
    "it": """
        a ad al alla alle anche che chi ci come con cosa da dal dalla dei del della delle
        dello di dove e ed gli ha hanno ho il in io la le lei li lo loro lui ma mi mia mio
        ne nei nel nella noi non o per perché più posso può quale quali quando quanto
        questa questo quello si sia sono su sua sue sul suo ti tra fra tu tuo tua un una uno
        vi voi ciao grazie
    """,
    "nl": """
        aan al als bij dan dat de deze die dit doen een en er had heb hebben heeft het hier
        hij hoe hun ik in is je jij kan kun kunnen maar me met mijn moet na naar niet nog nu
        of om ook op te tot u uit uw van voor waar wanneer wat we wel wie wij wil worden
        wordt ze zij zijn zo zou hallo bedankt
    """,
    "pl": """
        a aby ale albo bez być był była było co czy dla do gdy gdzie i ich ile jak jaka
        jaki jakie jest jestem jej jego już kiedy kto która które który lub ma mam mi mnie
        mogę można mój moja na nad nie nim o od oraz po pod przez przy się są ta tak te
        tego ten to tu ty w we z za że dzień dobry dziękuję proszę
    """,
    "sv": """
        att av de dem den det detta du där efter eller en ett finns från för har hon hur
        här i inte jag kan man med mig mitt mina mot när och om på sig som så till under
        var vad vem vi vilken vilket ni är hej tack
    """,
    "tr": """
        acaba ama bana beni benim bir biz bu bunu da daha de diye en gibi hangi her için ile
        ise kadar ki kim mi mı mu mü nasıl ne neden nerede niçin o ona onu şu siz ve veya ya
        merhaba teşekkürler lütfen
    """,
    "ru": """
        а без бы был была были было быть в вам вас во вот все всё вы где да для до его ее
        её если есть еще ещё же за и из или им их к как какая какие какой когда кто ли
        либо мне меня мой моя мы на над надо не нет ни но нужно о об он она они оно от
        по под при про с со так также там то тоже ты у уже чем что чтобы это эта этот
        можно сколько почему зачем здравствуйте спасибо пожалуйста
    """,
    "uk": """
        а або але б без був була були було бути в вам вас ви від все де для до є його її
        з за зі і із й їх коли куди ли мене мені ми мій моя на над не ні но про при так
        також там те ти то треба тут у хто це ця цей ці чи чому що як який яка які яке
        скільки можна потрібно привіт дякую будь ласка
    """,
    # Chinese, Japanese, Korean: function words, whose character pairs are stop pairs
    "zh": """
        什么 怎么 怎样 为什么 哪里 哪儿 哪个 我们 你们 他们 她们 它们 可以 这个 那个
        这些 那些 时候 如何 是否 有没有 请问 谢谢 你好
    """,
    "ja": """
        何 誰 私 僕 方法 教えて 下さい ください 場合 時間 どう どこ いつ なに なぜ
    """,
    "ko": """
        무엇 어떻게 어디 언제 누구 왜 어느 있나요 있어요 합니까 하나요 해요 입니다 주세요
        알려 저는 제가 우리 그리고 그런데 하지만 안녕하세요 감사합니다
    """,
}

# Single characters that are function words: a pair of two of them is a stop pair.
CHARACTERS: dict[str, str] = {
    "zh": "的了是在我你他她它们这那有和与吗呢吧啊怎么什哪谁为被把也都就要会能可以"
    "之而及或但如果还很个不没到给对从向让去来说呀嘛",
    "ko": "은는이가을를에의도로와과께서만요고며나아어게",
}
