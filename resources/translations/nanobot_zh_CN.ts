<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
    <context>
        <name />
        <message>
            <source>System default</source>
            <translation>跟随系统</translation>
        </message>
        <message>
            <source>Summary (lines added and removed)</source>
            <translation>摘要（增加和删除的行数）</translation>
        </message>
        <message>
            <source>Inline diff</source>
            <translation>内联差异</translation>
        </message>
        <message>
            <source>Collapsed (open the card to see it)</source>
            <translation>折叠（打开卡片查看）</translation>
        </message>
        <message>
            <source>(file)</source>
            <translation>（文件）</translation>
        </message>
        <message>
            <source>{path} (new file)</source>
            <translation>{path}（新文件）</translation>
        </message>
        <message>
            <source>… 1 more line — open the card to see it</source>
            <translation>… 还有 1 行 — 展开卡片查看</translation>
        </message>
        <message>
            <source>… {count} more lines — open the card to see them</source>
            <translation>… 还有 {count} 行 — 展开卡片查看</translation>
        </message>
        <message>
            <source>a file</source>
            <translation>一个文件</translation>
        </message>
        <message>
            <source>changed {files}: {added} lines added, {removed} removed</source>
            <translation>修改了 {files}：新增 {added} 行，删除 {removed} 行</translation>
        </message>
        <message>
            <source>Follow the system</source>
            <translation>跟随系统</translation>
        </message>
        <message>
            <source>Light</source>
            <translation>浅色</translation>
        </message>
        <message>
            <source>Dark</source>
            <translation>深色</translation>
        </message>
        <message>
            <source>Appearance &amp; startup</source>
            <translation>外观与启动</translation>
        </message>
        <message>
            <source>How the window looks and behaves. These settings belong to this app and are kept in desktop.json.</source>
            <translation>窗口的外观和行为。这些设置属于本应用，保存在 desktop.json 中。</translation>
        </message>
        <message>
            <source>Theme</source>
            <translation>主题</translation>
        </message>
        <message>
            <source>Theme: {choice}</source>
            <translation>主题：{choice}</translation>
        </message>
        <message>
            <source>Language</source>
            <translation>语言</translation>
        </message>
        <message>
            <source>The window shows the new language from the next start.</source>
            <translation>新语言将在下次启动时生效。</translation>
        </message>
        <message>
            <source>Chat</source>
            <translation>聊天</translation>
        </message>
        <message>
            <source>Show file changes as:</source>
            <translation>文件改动显示为：</translation>
        </message>
        <message>
            <source>Show file changes as: {choice}</source>
            <translation>文件改动显示为：{choice}</translation>
        </message>
        <message>
            <source>Window</source>
            <translation>窗口</translation>
        </message>
        <message>
            <source>Closing the window keeps nanobot running in the system tray</source>
            <translation>关闭窗口后 nanobot 继续在系统托盘中运行</translation>
        </message>
        <message>
            <source>Close to tray</source>
            <translation>关闭到托盘</translation>
        </message>
        <message>
            <source>Only where a system tray exists; otherwise closing the window quits.</source>
            <translation>仅在有系统托盘时有效；否则关闭窗口即退出。</translation>
        </message>
        <message>
            <source>Start nanobot Desktop when I log in</source>
            <translation>登录时启动 nanobot Desktop</translation>
        </message>
        <message>
            <source>Start at login</source>
            <translation>登录时启动</translation>
        </message>
        <message>
            <source>Adds {path} (removed again when unticked).</source>
            <translation>将添加 {path}（取消勾选时删除）。</translation>
        </message>
        <message>
            <source>Start at login: cannot change {path} ({error}). Nothing was saved.</source>
            <translation>登录时启动：无法更改 {path}（{error}）。未保存任何内容。</translation>
        </message>
        <message>
            <source>Not saved: {error}</source>
            <translation>未保存：{error}</translation>
        </message>
        <message>
            <source>Saved. The new language shows from the next start.</source>
            <translation>已保存。新语言将在下次启动时生效。</translation>
        </message>
        <message>
            <source>Saved.</source>
            <translation>已保存。</translation>
        </message>
        <message>
            <source>Not saved: the config file has an error ({error}). Fix the file (it was not changed), then save again.</source>
            <translation>未保存：配置文件有错误（{error}）。请修正该文件（它未被更改），然后再次保存。</translation>
        </message>
        <message>
            <source>Not saved: cannot write the config file ({error}).</source>
            <translation>未保存：无法写入配置文件（{error}）。</translation>
        </message>
        <message>
            <source>{page} settings</source>
            <translation>{page}设置</translation>
        </message>
        <message>
            <source>{page} status</source>
            <translation>{page}状态</translation>
        </message>
        <message>
            <source>Revert</source>
            <translation>还原</translation>
        </message>
        <message>
            <source>Revert {page} settings</source>
            <translation>还原{page}设置</translation>
        </message>
        <message>
            <source>Show the saved values again</source>
            <translation>重新显示已保存的值</translation>
        </message>
        <message>
            <source>Save</source>
            <translation>保存</translation>
        </message>
        <message>
            <source>Save {page} settings</source>
            <translation>保存{page}设置</translation>
        </message>
        <message>
            <source>Save these settings (Ctrl+S)</source>
            <translation>保存这些设置（Ctrl+S）</translation>
        </message>
        <message>
            <source>{field}: {reason}. Nothing was saved.</source>
            <translation>{field}：{reason}。未保存任何内容。</translation>
        </message>
        <message>
            <source>Saved, but: {problem}</source>
            <translation>已保存，但是：{problem}</translation>
        </message>
        <message>
            <source>summarise this conversation into memory and start a fresh one (in a desktop chat a new chat opens and this one stays in the list; any other chat is set aside)</source>
            <translation>将本次对话总结进记忆并开始新对话（在桌面聊天中会打开新聊天，本聊天保留在列表中；其他聊天会被搁置）</translation>
        </message>
        <message>
            <source>summarise this conversation so far; later turns send the summary, not every message</source>
            <translation>总结目前的对话；之后的轮次只发送摘要，而不是每条消息</translation>
        </message>
        <message>
            <source>stop the running turn and its subagents</source>
            <translation>停止正在运行的轮次及其子智能体</translation>
        </message>
        <message>
            <source>model, tokens used, context fill, messages, running tasks</source>
            <translation>模型、已用令牌、上下文占用、消息、运行中的任务</translation>
        </message>
        <message>
            <source>distil recent history into long-term memory now</source>
            <translation>立即将近期历史提炼为长期记忆</translation>
        </message>
        <message>
            <source>show the latest Dream change (or /dream-log &lt;sha&gt;)</source>
            <translation>显示最近一次梦境整理的更改（或 /dream-log &lt;sha&gt;）</translation>
        </message>
        <message>
            <source>list recent Dream changes; /dream-restore &lt;sha&gt; undoes one</source>
            <translation>列出近期梦境整理的更改；/dream-restore &lt;sha&gt; 撤销其中一项</translation>
        </message>
        <message>
            <source>show how Dream organises memory here; /dream-prompt init makes it editable</source>
            <translation>显示梦境整理在此如何组织记忆；/dream-prompt init 使其可编辑</translation>
        </message>
        <message>
            <source>/trigger &lt;name&gt; makes a trigger bound to this chat: 'nanobot-desktop trigger &lt;id&gt; "message"' then sends a message into it</source>
            <translation>/trigger &lt;name&gt; 创建绑定到本聊天的触发器：之后用 'nanobot-desktop trigger &lt;id&gt; "message"' 向其发送消息</translation>
        </message>
        <message>
            <source>list pairing requests; /pairing approve|deny &lt;code&gt;, /pairing revoke &lt;channel&gt; &lt;sender&gt;</source>
            <translation>列出配对请求；/pairing approve|deny &lt;code&gt;，/pairing revoke &lt;channel&gt; &lt;sender&gt;</translation>
        </message>
        <message>
            <source>/image &lt;description&gt; makes an image with the configured image provider</source>
            <translation>/image &lt;description&gt; 使用已配置的图像服务商生成图片</translation>
        </message>
        <message>
            <source>this list</source>
            <translation>显示此列表</translation>
        </message>
        <message>
            <source>Your message is too long ({size}); I read messages up to {limit} KB. Send it as a file instead, or in shorter parts.</source>
            <translation>消息过长（{size}）；我最多读取 {limit} KB 的消息。请改为以文件发送，或分成较短的几部分。</translation>
        </message>
        <message>
            <source>New chat</source>
            <extracomment>The desktop's reminders chat (``cron.delivery.DEFAULT_CHANNEL:DEFAULT_CHAT``). The heartbeat's session (ours, and nanobot's).</extracomment>
            <translation>新聊天</translation>
        </message>
        <message>
            <source>Reminders</source>
            <translation>提醒</translation>
        </message>
        <message>
            <source>Heartbeat</source>
            <translation>心跳</translation>
        </message>
        <message>
            <source>Background task</source>
            <translation>后台任务</translation>
        </message>
        <message>
            <source>Archive into memory now</source>
            <translation>立即归档到记忆</translation>
        </message>
        <message>
            <source>Nothing new to archive: this chat is in memory already.</source>
            <translation>没有新内容可归档：本聊天已在记忆中。</translation>
        </message>
        <message>
            <source>1 message summarised into memory (History); Dream learns from them.</source>
            <translation>已将 1 条消息总结进记忆（历史）；梦境整理会从中学习。</translation>
        </message>
        <message>
            <source>{count} messages summarised into memory (History); Dream learns from them.</source>
            <translation>已将 {count} 条消息总结进记忆（历史）；梦境整理会从中学习。</translation>
        </message>
        <message>
            <source>Regenerate, export, archive into memory</source>
            <translation>重新生成、导出、归档到记忆</translation>
        </message>
        <message>
            <source>Archiving into memory failed: {error}</source>
            <translation>归档到记忆失败：{error}</translation>
        </message>
        <message>
            <source>Not connected — see the message at the top of the window</source>
            <translation>未连接——请查看窗口顶部的消息</translation>
        </message>
        <message>
            <source>Images and documents (*.png *.jpg *.jpeg *.gif *.webp *.bmp *.pdf *.docx *.xlsx *.pptx)</source>
            <translation>图片和文档 (*.png *.jpg *.jpeg *.gif *.webp *.bmp *.pdf *.docx *.xlsx *.pptx)</translation>
        </message>
        <message>
            <source>Message nanobot — Enter sends, Shift+Enter adds a line, / for commands</source>
            <translation>给 nanobot 发消息——Enter 发送，Shift+Enter 换行，/ 输入命令</translation>
        </message>
        <message>
            <source>Message nanobot — Enter sends, / for commands</source>
            <translation>给 nanobot 发消息——Enter 发送，/ 输入命令</translation>
        </message>
        <message>
            <source>Message nanobot</source>
            <translation>给 nanobot 发消息</translation>
        </message>
        <message>
            <source>Guide the running answer — Enter queues it for its next step, Esc stops</source>
            <translation>引导正在进行的回答——Enter 排入其下一步，Esc 停止</translation>
        </message>
        <message>
            <source>Guide the running answer — Esc stops</source>
            <translation>引导正在进行的回答——Esc 停止</translation>
        </message>
        <message>
            <source>Guide the running answer</source>
            <translation>引导正在进行的回答</translation>
        </message>
        <message>
            <source>Attach images or documents (or paste / drop them)</source>
            <translation>添加图片或文档（也可粘贴或拖放）</translation>
        </message>
        <message>
            <source>Attach images or documents</source>
            <translation>添加图片或文档</translation>
        </message>
        <message>
            <source>Send</source>
            <translation>发送</translation>
        </message>
        <message>
            <source>connecting…</source>
            <translation>正在连接…</translation>
        </message>
        <message>
            <source>Stop</source>
            <translation>停止</translation>
        </message>
        <message>
            <source>Stop the running turn (Esc). Enter sends what you typed to it as guidance.</source>
            <translation>停止正在运行的轮次（Esc）。按 Enter 会把输入的内容作为引导发给它。</translation>
        </message>
        <message>
            <source>Send (Enter)</source>
            <translation>发送（Enter）</translation>
        </message>
        <message>
            <source>{path}
Click to remove</source>
            <translation>{path}
点击移除</translation>
        </message>
        <message>
            <source>Remove attachment {name}</source>
            <translation>移除附件 {name}</translation>
        </message>
        <message>
            <source>Message</source>
            <translation>消息</translation>
        </message>
        <message>
            <source>Commands</source>
            <translation>命令</translation>
        </message>
        <message>
            <source>stopped</source>
            <translation>已停止</translation>
        </message>
        <message>
            <source>Command</source>
            <translation>命令</translation>
        </message>
        <message>
            <source>You</source>
            <translation>你</translation>
        </message>
        <message>
            <source>Assistant (answering)</source>
            <translation>助手（正在回答）</translation>
        </message>
        <message>
            <source>Assistant</source>
            <translation>助手</translation>
        </message>
        <message>
            <source>Reasoning</source>
            <translation>推理过程</translation>
        </message>
        <message>
            <source>waiting for your approval</source>
            <translation>等待你的审批</translation>
        </message>
        <message>
            <source>denied</source>
            <translation>已拒绝</translation>
        </message>
        <message>
            <source>failed</source>
            <translation>失败</translation>
        </message>
        <message>
            <source>succeeded</source>
            <translation>成功</translation>
        </message>
        <message>
            <source>Tool {tool}, {state}</source>
            <translation>工具 {tool}，{state}</translation>
        </message>
        <message>
            <source>Background task report</source>
            <translation>后台任务报告</translation>
        </message>
        <message>
            <source>Sent by the agent</source>
            <translation>由智能体发送</translation>
        </message>
        <message>
            <source>Reply to {command}</source>
            <translation>{command} 的回复</translation>
        </message>
        <message>
            <source>command</source>
            <translation>命令</translation>
        </message>
        <message>
            <source>Note</source>
            <translation>提示</translation>
        </message>
        <message>
            <source>Thinking…</source>
            <translation>思考中…</translation>
        </message>
        <message>
            <source>{text} (version {number} of {total}; Left and Right arrows switch)</source>
            <translation>{text}（第 {number} 版，共 {total} 版；用左右方向键切换）</translation>
        </message>
        <message>
            <source>{speaker}: {text}</source>
            <translation>{speaker}：{text}</translation>
        </message>
        <message>
            <source>Conversation</source>
            <translation>对话</translation>
        </message>
        <message>
            <source>Round {number} · {model}</source>
            <translation>第 {number} 轮 · {model}</translation>
        </message>
        <message>
            <source>, {outcome}</source>
            <translation>，{outcome}</translation>
        </message>
        <message>
            <source>, estimated</source>
            <translation>，估算值</translation>
        </message>
        <message>
            <source>input {tokens} ({cached} cached)</source>
            <translation>输入 {tokens}（其中缓存 {cached}）</translation>
        </message>
        <message>
            <source>input {tokens}</source>
            <translation>输入 {tokens}</translation>
        </message>
        <message>
            <source>output {tokens}</source>
            <translation>输出 {tokens}</translation>
        </message>
        <message>
            <source>Context per round chart</source>
            <translation>每轮上下文图表</translation>
        </message>
        <message>
            <source>No rounds recorded yet</source>
            <translation>尚无轮次记录</translation>
        </message>
        <message>
            <source>{rounds} round(s); last input {tokens} of {window} tokens, output {output}; {compactions} compaction(s)</source>
            <translation>{rounds} 轮；最近一次输入 {tokens} / {window} 令牌，输出 {output}；压缩 {compactions} 次</translation>
        </message>
        <message>
            <source>{rounds} round(s); last input {tokens} tokens, output {output}; {compactions} compaction(s)</source>
            <translation>{rounds} 轮；最近一次输入 {tokens} 令牌，输出 {output}；压缩 {compactions} 次</translation>
        </message>
        <message>
            <source>input</source>
            <translation>输入</translation>
        </message>
        <message>
            <source>cached input</source>
            <translation>缓存输入</translation>
        </message>
        <message>
            <source>output</source>
            <translation>输出</translation>
        </message>
        <message>
            <source>context window</source>
            <translation>上下文窗口</translation>
        </message>
        <message>
            <source>compaction</source>
            <translation>压缩</translation>
        </message>
        <message>
            <source>window {tokens}</source>
            <translation>窗口 {tokens}</translation>
        </message>
        <message>
            <source>compacted</source>
            <translation>已压缩</translation>
        </message>
        <message>
            <source>(latest {shown} of {total} rounds)</source>
            <translation>（最近 {shown} 轮，共 {total} 轮）</translation>
        </message>
        <message>
            <source>No model calls recorded for this chat yet.</source>
            <translation>此聊天尚无模型调用记录。</translation>
        </message>
        <message>
            <source>{count} round(s)</source>
            <translation>{count} 轮</translation>
        </message>
        <message>
            <source>last request {tokens} of {window} tokens ({percent}%)</source>
            <translation>最近一次请求 {tokens} / {window} 令牌（{percent}%）</translation>
        </message>
        <message>
            <source>last request {tokens} tokens</source>
            <translation>最近一次请求 {tokens} 令牌</translation>
        </message>
        <message>
            <source>cache hits in {count} round(s), {tokens} tokens</source>
            <translation>{count} 轮命中缓存，共 {tokens} 令牌</translation>
        </message>
        <message>
            <source>no cache hits reported</source>
            <translation>未报告缓存命中</translation>
        </message>
        <message>
            <source>compacted {count}×</source>
            <translation>已压缩 {count} 次</translation>
        </message>
        <message>
            <source>not compacted</source>
            <translation>未压缩</translation>
        </message>
        <message>
            <source>Context — {title}</source>
            <translation>上下文 — {title}</translation>
        </message>
        <message>
            <source>Context view</source>
            <translation>上下文视图</translation>
        </message>
        <message>
            <source>Reading the usage ledger…</source>
            <translation>正在读取用量记录…</translation>
        </message>
        <message>
            <source>Context summary</source>
            <translation>上下文摘要</translation>
        </message>
        <message>
            <source>Each round is one model call of this chat's turns, as the provider reported it. Compaction summarises older messages so later rounds send less.</source>
            <translation>每一轮是此聊天中的一次模型调用，数据来自服务商的报告。压缩会总结较早的消息，让之后的轮次发送更少的内容。</translation>
        </message>
        <message>
            <source>Compact now</source>
            <translation>立即压缩</translation>
        </message>
        <message>
            <source>Summarise this chat so far (/compact)</source>
            <translation>总结此聊天至今的内容（/compact）</translation>
        </message>
        <message>
            <source>Compacting…</source>
            <translation>正在压缩…</translation>
        </message>
        <message>
            <source>Check the key in the provider settings.</source>
            <translation>请在服务商设置中检查密钥。</translation>
        </message>
        <message>
            <source>Provider settings</source>
            <translation>服务商设置</translation>
        </message>
        <message>
            <source>Add credit or switch provider.</source>
            <translation>请充值或更换服务商。</translation>
        </message>
        <message>
            <source>Usage &amp; budgets</source>
            <translation>用量与预算</translation>
        </message>
        <message>
            <source>Wait a moment, then retry.</source>
            <translation>请稍候再重试。</translation>
        </message>
        <message>
            <source>Choose another model.</source>
            <translation>请选择其他模型。</translation>
        </message>
        <message>
            <source>Choose a model</source>
            <translation>选择模型</translation>
        </message>
        <message>
            <source>Check the endpoint and your connection.</source>
            <translation>请检查端点和网络连接。</translation>
        </message>
        <message>
            <source>Agent settings</source>
            <translation>智能体设置</translation>
        </message>
        <message>
            <source>Retry, or rephrase the request.</source>
            <translation>请重试，或换种方式表述请求。</translation>
        </message>
        <message>
            <source>The last reply did not finish.</source>
            <translation>上一条回复未完成。</translation>
        </message>
        <message>
            <source>The model call failed.</source>
            <translation>模型调用失败。</translation>
        </message>
        <message>
            <source>Error</source>
            <translation>错误</translation>
        </message>
        <message>
            <source>Retry</source>
            <translation>重试</translation>
        </message>
        <message>
            <source>Dismiss error</source>
            <translation>关闭错误提示</translation>
        </message>
        <message>
            <source>Details</source>
            <translation>详情</translation>
        </message>
        <message>
            <source>Show error details</source>
            <translation>显示错误详情</translation>
        </message>
        <message>
            <source>Error details</source>
            <translation>错误详情</translation>
        </message>
        <message>
            <source>{sentence} {advice}</source>
            <translation>{sentence}{advice}</translation>
        </message>
        <message>
            <source>Describe an image — Enter makes it with the image provider, Ctrl+Shift+I leaves image mode</source>
            <translation>描述一张图片——Enter 由图像服务商生成，Ctrl+Shift+I 退出图片模式</translation>
        </message>
        <message>
            <source>Describe an image — Enter makes it</source>
            <translation>描述一张图片——Enter 生成</translation>
        </message>
        <message>
            <source>Describe an image</source>
            <translation>描述一张图片</translation>
        </message>
        <message>
            <source>Image mode ({shortcut}): what you send is drawn as an image</source>
            <translation>图片模式（{shortcut}）：发送的内容会被画成图片</translation>
        </message>
        <message>
            <source>Image mode</source>
            <translation>图片模式</translation>
        </message>
        <message>
            <source>Image mode (on)</source>
            <translation>图片模式（已开启）</translation>
        </message>
        <message>
            <source>New messages ↓</source>
            <translation>新消息 ↓</translation>
        </message>
        <message>
            <source>New messages below</source>
            <translation>下方有新消息</translation>
        </message>
        <message>
            <source>Scroll to the newest message</source>
            <translation>滚动到最新消息</translation>
        </message>
        <message>
            <source>Scroll to the newest message (End)</source>
            <translation>滚动到最新消息（End）</translation>
        </message>
        <message>
            <source>Chats, skills and MCP servers</source>
            <extracomment>``@word`` right before the cursor, at the start of the text or after a space.</extracomment>
            <translation>聊天、技能和 MCP 服务器</translation>
        </message>
        <message>
            <source>skill</source>
            <translation>技能</translation>
        </message>
        <message>
            <source>MCP server</source>
            <translation>MCP 服务器</translation>
        </message>
        <message>
            <source>Auto</source>
            <translation>自动</translation>
        </message>
        <message>
            <source>Choose another model</source>
            <translation>选择其他模型</translation>
        </message>
        <message>
            <source>Provider</source>
            <translation>服务商</translation>
        </message>
        <message>
            <source>Auto (from the model name)</source>
            <translation>自动（根据模型名称）</translation>
        </message>
        <message>
            <source>Model name</source>
            <translation>模型名称</translation>
        </message>
        <message>
            <source>model name</source>
            <translation>模型名称</translation>
        </message>
        <message>
            <source>Use</source>
            <translation>使用</translation>
        </message>
        <message>
            <source>Use this model</source>
            <translation>使用此模型</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>取消</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>模型</translation>
        </message>
        <message>
            <source>listing models…</source>
            <translation>正在列出模型…</translation>
        </message>
        <message>
            <source>{count} listed</source>
            <translation>已列出 {count} 个</translation>
        </message>
        <message>
            <source>enter a model name</source>
            <translation>请输入模型名称</translation>
        </message>
        <message>
            <source>{model} via {provider}</source>
            <translation>{model}（经由 {provider}）</translation>
        </message>
        <message>
            <source>This chat uses {model} (its own model). New chats use the default, {default}. Click to change this chat's model.</source>
            <translation>本聊天使用 {model}（本聊天专用模型）。新聊天使用默认模型 {default}。点击更改本聊天的模型。</translation>
        </message>
        <message>
            <source>{model}, this chat's own model</source>
            <translation>{model}，本聊天专用模型</translation>
        </message>
        <message>
            <source>This chat uses the default model, {model}. Click to choose another model for this chat.</source>
            <translation>本聊天使用默认模型 {model}。点击为本聊天选择其他模型。</translation>
        </message>
        <message>
            <source>none</source>
            <translation>无</translation>
        </message>
        <message>
            <source>{model}, the default model</source>
            <translation>{model}，默认模型</translation>
        </message>
        <message>
            <source>This chat uses the preset {name} ({model}). Click to switch.</source>
            <translation>本聊天使用预设 {name}（{model}）。点击切换。</translation>
        </message>
        <message>
            <source>preset {name}, {model}</source>
            <translation>预设 {name}，{model}</translation>
        </message>
        <message>
            <source>No model</source>
            <translation>无模型</translation>
        </message>
        <message>
            <source>Model for this chat</source>
            <translation>本聊天的模型</translation>
        </message>
        <message>
            <source>Other model…</source>
            <translation>其他模型…</translation>
        </message>
        <message>
            <source>Use the default model ({model})</source>
            <translation>使用默认模型（{model}）</translation>
        </message>
        <message>
            <source>Make {model} the default for new chats</source>
            <translation>将 {model} 设为新聊天的默认模型</translation>
        </message>
        <message>
            <source>Default model settings…</source>
            <translation>默认模型设置…</translation>
        </message>
        <message>
            <source>Presets for this chat</source>
            <translation>本聊天的预设</translation>
        </message>
        <message>
            <source>Answer this chat with the preset {name} ({model})</source>
            <translation>用预设 {name}（{model}）回答本聊天</translation>
        </message>
        <message>
            <source>No preset for this chat</source>
            <translation>本聊天不使用预设</translation>
        </message>
        <message>
            <source>Retry runs it again.</source>
            <translation>点击“重试”重新运行。</translation>
        </message>
        <message>
            <source>{name} is a folder:

{names}
… and {count} more</source>
            <translation>{name} 是一个文件夹：

{names}
…… 另有 {count} 项</translation>
        </message>
        <message>
            <source>{name} is a folder:

{names}</source>
            <translation>{name} 是一个文件夹：

{names}</translation>
        </message>
        <message>
            <source>This image is too large to preview ({size}; the limit is {limit}).</source>
            <translation>此图片过大，无法预览（{size}，上限为 {limit}）。</translation>
        </message>
        <message>
            <source>This file is too large to preview ({size}; the limit is {limit}). Open it in an editor.</source>
            <translation>此文件过大，无法预览（{size}，上限为 {limit}）。请在编辑器中打开。</translation>
        </message>
        <message>
            <source>This is a binary file ({size}); it has no text to show.</source>
            <translation>这是一个二进制文件（{size}），没有可显示的文本。</translation>
        </message>
        <message>
            <source>This file does not exist (any more).</source>
            <translation>此文件不存在（或已被删除）。</translation>
        </message>
        <message>
            <source>This file cannot be read (no permission).</source>
            <translation>无法读取此文件（没有权限）。</translation>
        </message>
        <message>
            <source>This file cannot be read: {error}.</source>
            <translation>无法读取此文件：{error}。</translation>
        </message>
        <message>
            <source>This file is not UTF-8 text; open it in an editor.</source>
            <translation>此文件不是 UTF-8 文本，请在编辑器中打开。</translation>
        </message>
        <message>
            <source>Image</source>
            <translation>图片</translation>
        </message>
        <message>
            <source>{width} × {height} pixels, shown at {scale}</source>
            <translation>{width} × {height} 像素，显示比例 {scale}</translation>
        </message>
        <message>
            <source>Open in editor</source>
            <translation>在编辑器中打开</translation>
        </message>
        <message>
            <source>Open {name} in the system's editor</source>
            <translation>在系统编辑器中打开 {name}</translation>
        </message>
        <message>
            <source>Show in folder</source>
            <translation>在文件夹中显示</translation>
        </message>
        <message>
            <source>Show the folder of {name}</source>
            <translation>显示 {name} 所在的文件夹</translation>
        </message>
        <message>
            <source>Fit</source>
            <translation>适应窗格</translation>
        </message>
        <message>
            <source>Fit the image to the pane</source>
            <translation>使图片适应窗格大小</translation>
        </message>
        <message>
            <source>Show the image at 100 %</source>
            <translation>以 100% 比例显示图片</translation>
        </message>
        <message>
            <source>Contents of {name}</source>
            <translation>{name} 的内容</translation>
        </message>
        <message>
            <source>Loading…</source>
            <translation>正在加载…</translation>
        </message>
        <message>
            <source>{count} bytes</source>
            <translation>{count} 字节</translation>
        </message>
        <message>
            <source>This image could not be decoded.</source>
            <translation>无法解码此图片。</translation>
        </message>
        <message>
            <source>File preview</source>
            <translation>文件预览</translation>
        </message>
        <message>
            <source>Preview</source>
            <translation>预览</translation>
        </message>
        <message>
            <source>Close the preview (Esc); Ctrl+W closes the tab</source>
            <translation>关闭预览（Esc）；Ctrl+W 关闭标签页</translation>
        </message>
        <message>
            <source>Close the preview</source>
            <translation>关闭预览</translation>
        </message>
        <message>
            <source>Previewed files</source>
            <translation>预览的文件</translation>
        </message>
        <message>
            <source>No project (workspace)</source>
            <extracomment>Opens the folder chooser: ``(parent, caption, start folder)`` → the chosen folder, or ``""`` when cancelled. Tests replace it (the OS dialog cannot be driven).</extracomment>
            <translation>无项目（工作区）</translation>
        </message>
        <message>
            <source>Restricted</source>
            <translation>受限</translation>
        </message>
        <message>
            <source>File tools and commands work only inside the project folder (or the workspace).</source>
            <translation>文件工具和命令只在项目文件夹（或工作区）内运行。</translation>
        </message>
        <message>
            <source>Full access</source>
            <translation>完全访问</translation>
        </message>
        <message>
            <source>File tools and commands may reach outside the project folder; writes outside it still ask first.</source>
            <translation>文件工具和命令可以访问项目文件夹以外的位置；在其外写入仍会先询问。</translation>
        </message>
        <message>
            <source>Full access is off: Settings → Tools &amp; safety restricts tools to the workspace.</source>
            <translation>完全访问已关闭：设置 → 工具与安全 将工具限制在工作区内。</translation>
        </message>
        <message>
            <source>Project folder</source>
            <translation>项目文件夹</translation>
        </message>
        <message>
            <source>Choose project folder…</source>
            <translation>选择项目文件夹…</translation>
        </message>
        <message>
            <source>Clear project</source>
            <translation>清除项目</translation>
        </message>
        <message>
            <source>Access mode</source>
            <translation>访问模式</translation>
        </message>
        <message>
            <source>Full access unavailable</source>
            <translation>无法使用完全访问</translation>
        </message>
        <message>
            <source>Project folder problem</source>
            <translation>项目文件夹问题</translation>
        </message>
        <message>
            <source>Project:</source>
            <translation>项目：</translation>
        </message>
        <message>
            <source>Access:</source>
            <translation>访问：</translation>
        </message>
        <message>
            <source>Relative paths and commands start in the agent's workspace. Choose a project folder for this chat.</source>
            <translation>相对路径和命令从智能体的工作区开始。可为本聊天选择一个项目文件夹。</translation>
        </message>
        <message>
            <source>Choose the chat's project folder</source>
            <translation>选择本聊天的项目文件夹</translation>
        </message>
        <message>
            <source>This applies from the next message.</source>
            <translation>将从下一条消息起生效。</translation>
        </message>
        <message>
            <source>The chat's project could not be saved.</source>
            <translation>无法保存本聊天的项目。</translation>
        </message>
        <message>
            <source>Stop reading aloud</source>
            <translation>停止朗读</translation>
        </message>
        <message>
            <source>Read aloud</source>
            <translation>朗读</translation>
        </message>
        <message>
            <source>temporary</source>
            <translation>临时</translation>
        </message>
        <message>
            <source>needs your approval</source>
            <translation>等待你的审批</translation>
        </message>
        <message>
            <source>working…</source>
            <translation>处理中…</translation>
        </message>
        <message>
            <source>new</source>
            <translation>新建</translation>
        </message>
        <message>
            <source>new message</source>
            <translation>新消息</translation>
        </message>
        <message>
            <source>running</source>
            <translation>运行中</translation>
        </message>
        <message>
            <source>unread</source>
            <translation>未读</translation>
        </message>
        <message>
            <source>needs approval</source>
            <translation>需要审批</translation>
        </message>
        <message>
            <source>found: {snippet}</source>
            <translation>找到：{snippet}</translation>
        </message>
        <message>
            <source>, </source>
            <translation>，</translation>
        </message>
        <message>
            <source>Search chats (Ctrl+K)</source>
            <translation>搜索聊天（Ctrl+K）</translation>
        </message>
        <message>
            <source>Search chats</source>
            <translation>搜索聊天</translation>
        </message>
        <message>
            <source>Start a new chat (Ctrl+N)</source>
            <translation>开始新聊天（Ctrl+N）</translation>
        </message>
        <message>
            <source>New temporary chat</source>
            <translation>新临时聊天</translation>
        </message>
        <message>
            <source>Start a temporary chat: nothing is saved, remembered or scheduled (Ctrl+Shift+N)</source>
            <translation>开始临时聊天：不保存、不记忆、不安排任何内容（Ctrl+Shift+N）</translation>
        </message>
        <message>
            <source>Chats</source>
            <translation>聊天</translation>
        </message>
        <message>
            <source>Search result</source>
            <translation>搜索结果</translation>
        </message>
        <message>
            <source>Rename</source>
            <translation>重命名</translation>
        </message>
        <message>
            <source>Delete</source>
            <translation>删除</translation>
        </message>
        <message>
            <source>Searching…</source>
            <translation>正在搜索…</translation>
        </message>
        <message>
            <source>No chats match “{query}”.</source>
            <translation>没有与“{query}”匹配的聊天。</translation>
        </message>
        <message>
            <source>Could not rename: {error}</source>
            <translation>无法重命名：{error}</translation>
        </message>
        <message>
            <source>Could not delete: {error}</source>
            <translation>无法删除：{error}</translation>
        </message>
        <message>
            <source>Deleted “{title}”.</source>
            <translation>已删除“{title}”。</translation>
        </message>
        <message>
            <source>Undo</source>
            <translation>撤销</translation>
        </message>
        <message>
            <source>Could not restore: {error}</source>
            <translation>无法恢复：{error}</translation>
        </message>
        <message>
            <source>Notification</source>
            <translation>通知</translation>
        </message>
        <message>
            <source>Messages for the running answer</source>
            <translation>发给进行中回答的消息</translation>
        </message>
        <message>
            <source>Queued for the next step: {text}</source>
            <translation>已排入下一步：{text}</translation>
        </message>
        <message>
            <source>Queued message</source>
            <translation>排队的消息</translation>
        </message>
        <message>
            <source>Send now</source>
            <translation>立即发送</translation>
        </message>
        <message>
            <source>Stop the answer and send this now</source>
            <translation>停止回答并立即发送此消息</translation>
        </message>
        <message>
            <source>Stop the running answer and send this as a new message</source>
            <translation>停止正在进行的回答，并将此内容作为新消息发送</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>移除</translation>
        </message>
        <message>
            <source>Remove the queued message</source>
            <translation>移除排队的消息</translation>
        </message>
        <message>
            <source>Temporary chat — nothing is saved, remembered or scheduled from it. It is gone when you close it or quit.</source>
            <translation>临时聊天——不会保存、记忆或据此安排任何内容。关闭它或退出应用后即消失。</translation>
        </message>
        <message>
            <source>Temporary chat</source>
            <translation>临时聊天</translation>
        </message>
        <message>
            <source>Last turn usage</source>
            <translation>上一轮用量</translation>
        </message>
        <message>
            <source>Context window fill</source>
            <translation>上下文窗口占用</translation>
        </message>
        <message>
            <source>Enter opens the chat's context per round</source>
            <translation>按 Enter 查看本聊天每一轮的上下文</translation>
        </message>
        <message>
            <source>context –</source>
            <translation>上下文 –</translation>
        </message>
        <message>
            <source>How much of the model's context window the last request used (click for each round)</source>
            <translation>上一次请求占用了模型上下文窗口的多少（点击查看每一轮）</translation>
        </message>
        <message>
            <source>context {percent}%</source>
            <translation>上下文 {percent}%</translation>
        </message>
        <message>
            <source>Last request: {tokens} of {window} tokens — click for each round</source>
            <translation>上一次请求：{tokens} / {window} 个令牌——点击查看每一轮</translation>
        </message>
        <message>
            <source>Microphone level</source>
            <translation>麦克风音量</translation>
        </message>
        <message>
            <source>Stop and transcribe</source>
            <translation>停止并转写</translation>
        </message>
        <message>
            <source>Try again</source>
            <translation>再试一次</translation>
        </message>
        <message>
            <source>Install voice support</source>
            <translation>安装语音支持</translation>
        </message>
        <message>
            <source>Close</source>
            <translation>关闭</translation>
        </message>
        <message>
            <source>Voice input ({shortcut}): speak, then press again</source>
            <translation>语音输入（{shortcut}）：说话，然后再按一次</translation>
        </message>
        <message>
            <source>Voice input</source>
            <translation>语音输入</translation>
        </message>
        <message>
            <source>Recording {time} — Esc cancels</source>
            <translation>正在录音 {time}——Esc 取消</translation>
        </message>
        <message>
            <source>The recording could not be kept: {error}</source>
            <translation>无法保存录音：{error}</translation>
        </message>
        <message>
            <source>Transcribing…</source>
            <translation>正在转写…</translation>
        </message>
        <message>
            <source>Voice transcription is turned off in the config.</source>
            <translation>配置中已关闭语音转写。</translation>
        </message>
        <message>
            <source>No {provider} key for transcription: add one in Settings → Providers (or choose another transcription provider).</source>
            <translation>没有用于转写的 {provider} 密钥：请在 设置 → 服务商 中添加（或选择其他转写服务商）。</translation>
        </message>
        <message>
            <source>No transcript: {error}
The recording is kept: {path}</source>
            <translation>未能转写：{error}
录音已保存：{path}</translation>
        </message>
        <message>
            <source>Nothing was heard in the recording.</source>
            <translation>录音中没有听到任何内容。</translation>
        </message>
        <message>
            <source>Stop recording</source>
            <translation>停止录音</translation>
        </message>
        <message>
            <source>{reason} Install it with: {command}</source>
            <translation>{reason} 安装命令：{command}</translation>
        </message>
        <message>
            <source>{reason} This runs:
{command}</source>
            <translation>{reason} 将运行：
{command}</translation>
        </message>
        <message>
            <source>Installing voice support…</source>
            <translation>正在安装语音支持…</translation>
        </message>
        <message>
            <source>Installing… {line}</source>
            <translation>正在安装… {line}</translation>
        </message>
        <message>
            <source>Installing voice support failed:
{error}</source>
            <translation>安装语音支持失败：
{error}</translation>
        </message>
        <message>
            <source>Voice support is installed: press 🎙 to speak.</source>
            <translation>语音支持已安装：按 🎙 开始说话。</translation>
        </message>
        <message>
            <source>Mon</source>
            <translation>周一</translation>
        </message>
        <message>
            <source>Tue</source>
            <translation>周二</translation>
        </message>
        <message>
            <source>Wed</source>
            <translation>周三</translation>
        </message>
        <message>
            <source>Thu</source>
            <translation>周四</translation>
        </message>
        <message>
            <source>Fri</source>
            <translation>周五</translation>
        </message>
        <message>
            <source>Sat</source>
            <translation>周六</translation>
        </message>
        <message>
            <source>Sun</source>
            <translation>周日</translation>
        </message>
        <message>
            <source>Jan</source>
            <translation>1月</translation>
        </message>
        <message>
            <source>Feb</source>
            <translation>2月</translation>
        </message>
        <message>
            <source>Mar</source>
            <translation>3月</translation>
        </message>
        <message>
            <source>Apr</source>
            <translation>4月</translation>
        </message>
        <message>
            <source>May</source>
            <translation>5月</translation>
        </message>
        <message>
            <source>Jun</source>
            <translation>6月</translation>
        </message>
        <message>
            <source>Jul</source>
            <translation>7月</translation>
        </message>
        <message>
            <source>Aug</source>
            <translation>8月</translation>
        </message>
        <message>
            <source>Sep</source>
            <translation>9月</translation>
        </message>
        <message>
            <source>Oct</source>
            <translation>10月</translation>
        </message>
        <message>
            <source>Nov</source>
            <translation>11月</translation>
        </message>
        <message>
            <source>Dec</source>
            <translation>12月</translation>
        </message>
        <message>
            <source>January</source>
            <translation>1月</translation>
        </message>
        <message>
            <source>February</source>
            <translation>2月</translation>
        </message>
        <message>
            <source>March</source>
            <translation>3月</translation>
        </message>
        <message>
            <source>April</source>
            <translation>4月</translation>
        </message>
        <message>
            <source>June</source>
            <translation>6月</translation>
        </message>
        <message>
            <source>July</source>
            <translation>7月</translation>
        </message>
        <message>
            <source>August</source>
            <translation>8月</translation>
        </message>
        <message>
            <source>September</source>
            <translation>9月</translation>
        </message>
        <message>
            <source>October</source>
            <translation>10月</translation>
        </message>
        <message>
            <source>November</source>
            <translation>11月</translation>
        </message>
        <message>
            <source>December</source>
            <translation>12月</translation>
        </message>
        <message>
            <source>{day} {month}</source>
            <translation>{month}{day}日</translation>
        </message>
        <message>
            <source>{month} {year}</source>
            <translation>{year}年{month}</translation>
        </message>
        <message>
            <source>chat</source>
            <translation>聊天</translation>
        </message>
        <message>
            <source>subagent</source>
            <translation>子智能体</translation>
        </message>
        <message>
            <source>title</source>
            <translation>标题</translation>
        </message>
        <message>
            <source>consolidation</source>
            <translation>记忆整合</translation>
        </message>
        <message>
            <source>dream</source>
            <translation>梦境整理</translation>
        </message>
        <message>
            <source>heartbeat</source>
            <translation>心跳</translation>
        </message>
        <message>
            <source>cron</source>
            <translation>定时任务</translation>
        </message>
        <message>
            <source>Spend per day chart</source>
            <translation>每日花费图表</translation>
        </message>
        <message>
            <source>{month}: {total} over {days} day(s), by source: {sources}</source>
            <translation>{month}：{days} 天共 {total}，按来源：{sources}</translation>
        </message>
        <message>
            <source>No spend recorded yet</source>
            <translation>尚无花费记录</translation>
        </message>
        <message>
            <source>{source}: {amount}</source>
            <translation>{source}：{amount}</translation>
        </message>
        <message>
            <source>runs a shell command</source>
            <extracomment>Channels whose chats are the person at the machine: the window and the terminal.</extracomment>
            <translation>要运行一条 shell 命令</translation>
        </message>
        <message>
            <source>types a command into a running program (allowing it allows exec too)</source>
            <translation>要向正在运行的程序输入命令（允许它也会允许 exec）</translation>
        </message>
        <message>
            <source>calls a tool of an MCP server</source>
            <translation>要调用 MCP 服务器的工具</translation>
        </message>
        <message>
            <source>reads your other chats from this chat</source>
            <translation>要从此聊天读取你的其他聊天</translation>
        </message>
        <message>
            <source>That message is no longer in this chat.</source>
            <translation>该消息已不在此聊天中。</translation>
        </message>
        <message>
            <source>There is no message to answer again in this chat.</source>
            <translation>此聊天中没有可重新回答的消息。</translation>
        </message>
        <message>
            <source>That version is damaged and cannot be shown (it is kept as it is).</source>
            <translation>该版本已损坏，无法显示（已原样保留）。</translation>
        </message>
        <message>
            <source>Wait for the current answer (or stop it) first.</source>
            <translation>请先等待当前回答完成（或停止它）。</translation>
        </message>
        <message>
            <source>That version is no longer in this chat.</source>
            <translation>该版本已不在此聊天中。</translation>
        </message>
        <message>
            <source>Markdown (*.md)</source>
            <translation>Markdown 文件 (*.md)</translation>
        </message>
        <message>
            <source>JSON (*.json)</source>
            <translation>JSON 文件 (*.json)</translation>
        </message>
        <message>
            <source>{model} (this chat)</source>
            <translation>{model}（此聊天）</translation>
        </message>
        <message>
            <source>The preset was not set: {error}</source>
            <translation>未能设置预设：{error}</translation>
        </message>
        <message>
            <source>Checking…</source>
            <translation>正在检查…</translation>
        </message>
        <message>
            <source>Model not changed: {error}</source>
            <translation>模型未更改：{error}</translation>
        </message>
        <message>
            <source>Switching…</source>
            <translation>正在切换…</translation>
        </message>
        <message>
            <source>Default not changed: {error}</source>
            <translation>默认模型未更改：{error}</translation>
        </message>
        <message>
            <source>Now using {model}, but it was not saved as the default: {error}</source>
            <translation>已在使用 {model}，但未能保存为默认模型：{error}</translation>
        </message>
        <message>
            <source>New chats now use {model}.</source>
            <translation>新聊天现在使用 {model}。</translation>
        </message>
        <message>
            <source>Only desktop chats can be answered again here.</source>
            <translation>此处只能重新回答桌面聊天。</translation>
        </message>
        <message>
            <source>Could not change the chat: {error}</source>
            <translation>无法修改聊天：{error}</translation>
        </message>
        <message>
            <source>The previous version is kept: switch with ‹ › under your message.</source>
            <translation>已保留之前的版本：可用你消息下方的 ‹ › 切换。</translation>
        </message>
        <message>
            <source>The previous version was too long to keep here: it is in the chat list.</source>
            <translation>之前的版本太长，无法保留在此处：它在聊天列表中。</translation>
        </message>
        <message>
            <source>Could not switch versions: {error}</source>
            <translation>无法切换版本：{error}</translation>
        </message>
        <message>
            <source>Version {number} of {total}</source>
            <translation>第 {number} 版，共 {total} 版</translation>
        </message>
        <message>
            <source>Nothing to export yet.</source>
            <translation>暂无可导出的内容。</translation>
        </message>
        <message>
            <source>Export chat</source>
            <translation>导出聊天</translation>
        </message>
        <message>
            <source>Not exported: {error}</source>
            <translation>未导出：{error}</translation>
        </message>
        <message>
            <source>Exported to {name}.</source>
            <translation>已导出到 {name}。</translation>
        </message>
        <message>
            <source>Deny</source>
            <translation>拒绝</translation>
        </message>
        <message>
            <source>Allow once</source>
            <translation>允许一次</translation>
        </message>
        <message>
            <source>Allow for this chat</source>
            <translation>在此聊天中允许</translation>
        </message>
        <message>
            <source>Always allow this tool</source>
            <translation>始终允许此工具</translation>
        </message>
        <message>
            <source>(no arguments)</source>
            <translation>（无参数）</translation>
        </message>
        <message>
            <source>Approval needed</source>
            <translation>需要审批</translation>
        </message>
        <message>
            <source>Tool arguments</source>
            <translation>工具参数</translation>
        </message>
        <message>
            <source>Allow {tool}?</source>
            <translation>允许 {tool} 吗？</translation>
        </message>
        <message>
            <source>The agent wants to use {tool}: it {reason}.</source>
            <translation>智能体想使用 {tool}：它{reason}。</translation>
        </message>
        <message>
            <source>{count} more waiting</source>
            <translation>还有 {count} 个等待中</translation>
        </message>
        <message>
            <source>Notice</source>
            <translation>通知</translation>
        </message>
        <message>
            <source>Editing a sent message</source>
            <translation>正在编辑已发送的消息</translation>
        </message>
        <message>
            <source>Editing a sent message — Send starts a new version from there; the current one is kept as an earlier version.</source>
            <translation>正在编辑已发送的消息 — 发送后将从该处开始新版本；当前版本会保留为较早的版本。</translation>
        </message>
        <message>
            <source>Cancel edit</source>
            <translation>取消编辑</translation>
        </message>
        <message>
            <source>Cancel the edit</source>
            <translation>取消编辑</translation>
        </message>
        <message>
            <source>Chat title</source>
            <translation>聊天标题</translation>
        </message>
        <message>
            <source>Channel</source>
            <translation>渠道</translation>
        </message>
        <message>
            <source>Chat actions</source>
            <translation>聊天操作</translation>
        </message>
        <message>
            <source>Regenerate, export</source>
            <translation>重新生成、导出</translation>
        </message>
        <message>
            <source>Regenerate last answer</source>
            <translation>重新生成最后的回答</translation>
        </message>
        <message>
            <source>Export as Markdown…</source>
            <translation>导出为 Markdown…</translation>
        </message>
        <message>
            <source>Export as JSON…</source>
            <translation>导出为 JSON…</translation>
        </message>
        <message>
            <source>{what} copied</source>
            <translation>{what} 已复制</translation>
        </message>
        <message>
            <source>from {channel}</source>
            <translation>来自 {channel}</translation>
        </message>
        <message>
            <source>{prompt} in · {completion} out</source>
            <translation>输入 {prompt} · 输出 {completion}</translation>
        </message>
        <message>
            <source>{prompt} in · {completion} out · {cost}</source>
            <translation>输入 {prompt} · 输出 {completion} · {cost}</translation>
        </message>
        <message>
            <source>Stopped</source>
            <translation>已停止</translation>
        </message>
        <message>
            <source>(no result: the turn was interrupted)</source>
            <translation>（无结果：本轮被中断）</translation>
        </message>
        <message>
            <source>Generated image</source>
            <translation>生成的图片</translation>
        </message>
        <message>
            <source>Reminder</source>
            <translation>提醒</translation>
        </message>
        <message>
            <source>Reminder · {label}</source>
            <translation>提醒 · {label}</translation>
        </message>
        <message>
            <source>Periodic check</source>
            <translation>定期检查</translation>
        </message>
        <message>
            <source>Copy</source>
            <translation>复制</translation>
        </message>
        <message>
            <source>code</source>
            <translation>代码</translation>
        </message>
        <message>
            <source>Start the conversation below.</source>
            <translation>在下方开始对话。</translation>
        </message>
        <message>
            <source>{seconds} s</source>
            <translation>{seconds} 秒</translation>
        </message>
        <message>
            <source>{minutes} m {seconds} s</source>
            <translation>{minutes} 分 {seconds} 秒</translation>
        </message>
        <message>
            <source>ended</source>
            <translation>已结束</translation>
        </message>
        <message>
            <source> · session {session} ({state})</source>
            <translation> · 会话 {session}（{state}）</translation>
        </message>
        <message>
            <source> · session {session}</source>
            <translation> · 会话 {session}</translation>
        </message>
        <message>
            <source>terminate</source>
            <translation>终止</translation>
        </message>
        <message>
            <source>wait for {text}</source>
            <translation>等待 {text}</translation>
        </message>
        <message>
            <source>wait for the end</source>
            <translation>等待结束</translation>
        </message>
        <message>
            <source>read output</source>
            <translation>读取输出</translation>
        </message>
        <message>
            <source>{action} · close input</source>
            <translation>{action} · 关闭输入</translation>
        </message>
        <message>
            <source>pasted image</source>
            <translation>粘贴的图片</translation>
        </message>
        <message>
            <source>[file: {name}]</source>
            <translation>[文件：{name}]</translation>
        </message>
        <message>
            <source>[image: {name}]</source>
            <translation>[图片：{name}]</translation>
        </message>
        <message>
            <source>waiting for your approval…</source>
            <translation>等待你的审批…</translation>
        </message>
        <message>
            <source>running…</source>
            <translation>运行中…</translation>
        </message>
        <message>
            <source>error {duration}</source>
            <translation>出错 {duration}</translation>
        </message>
        <message>
            <source>error</source>
            <translation>出错</translation>
        </message>
        <message>
            <source>(running…)</source>
            <translation>（运行中…）</translation>
        </message>
        <message>
            <source>(empty)</source>
            <translation>（空）</translation>
        </message>
        <message>
            <source>Arguments</source>
            <translation>参数</translation>
        </message>
        <message>
            <source>Result</source>
            <translation>结果</translation>
        </message>
        <message>
            <source>Queued — it will be answered after the current reply.</source>
            <translation>已排队 — 将在当前回复之后回答。</translation>
        </message>
        <message>
            <source>(stopped before it finished)</source>
            <translation>（在完成前被停止）</translation>
        </message>
        <message>
            <source>{reason} Waiting for the model… (retrying {attempt}/{attempts})</source>
            <translation>{reason} 正在等待模型…（重试 {attempt}/{attempts}）</translation>
        </message>
        <message>
            <source>Working…</source>
            <translation>处理中…</translation>
        </message>
        <message>
            <source>(no answer)</source>
            <translation>（无回答）</translation>
        </message>
        <message>
            <source>Code copied</source>
            <translation>代码已复制</translation>
        </message>
        <message>
            <source>Message copied</source>
            <translation>消息已复制</translation>
        </message>
        <message>
            <source>Selection copied</source>
            <translation>所选内容已复制</translation>
        </message>
        <message>
            <source>Copy message</source>
            <translation>复制消息</translation>
        </message>
        <message>
            <source>Copy code block {number}</source>
            <translation>复制代码块 {number}</translation>
        </message>
        <message>
            <source>Copy code</source>
            <translation>复制代码</translation>
        </message>
        <message>
            <source>Edit and resend…</source>
            <translation>编辑并重新发送…</translation>
        </message>
        <message>
            <source>Show version {number} of {total}</source>
            <translation>显示第 {number} 版（共 {total} 版）</translation>
        </message>
        <message>
            <source>Regenerate answer</source>
            <translation>重新生成回答</translation>
        </message>
        <message>
            <source>Preview {path}</source>
            <translation>预览 {path}</translation>
        </message>
        <message>
            <source>Hide details</source>
            <translation>隐藏详情</translation>
        </message>
        <message>
            <source>Show details</source>
            <translation>显示详情</translation>
        </message>
        <message>
            <source>Hide reasoning</source>
            <translation>隐藏推理过程</translation>
        </message>
        <message>
            <source>Show reasoning</source>
            <translation>显示推理过程</translation>
        </message>
    </context>
</TS>
