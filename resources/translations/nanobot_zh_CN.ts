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
            <source>Local command (stdio)</source>
            <translation>本地命令（stdio）</translation>
        </message>
        <message>
            <source>Add an MCP server</source>
            <translation>添加 MCP 服务器</translation>
        </message>
        <message>
            <source>Server name</source>
            <translation>服务器名称</translation>
        </message>
        <message>
            <source>e.g. {example}</source>
            <translation>例如 {example}</translation>
        </message>
        <message>
            <source>Transport</source>
            <translation>传输方式</translation>
        </message>
        <message>
            <source>NAME=value (one per line)</source>
            <translation>NAME=value（每行一个）</translation>
        </message>
        <message>
            <source>Environment variables</source>
            <translation>环境变量</translation>
        </message>
        <message>
            <source>Server URL</source>
            <translation>服务器 URL</translation>
        </message>
        <message>
            <source>Header-Name: value (one per line), e.g. Authorization: Bearer …</source>
            <translation>Header-Name: value（每行一个），例如 Authorization: Bearer …</translation>
        </message>
        <message>
            <source>HTTP headers</source>
            <translation>HTTP 头</translation>
        </message>
        <message>
            <source> s</source>
            <translation> 秒</translation>
        </message>
        <message>
            <source>Tool timeout in seconds</source>
            <translation>工具超时（秒）</translation>
        </message>
        <message>
            <source>Enabled tools</source>
            <translation>启用的工具</translation>
        </message>
        <message>
            <source>* (all), or names separated by commas</source>
            <translation>*（全部），或用逗号分隔的名称</translation>
        </message>
        <message>
            <source>Start from a well-known server</source>
            <translation>从常用服务器开始</translation>
        </message>
        <message>
            <source>Nothing — an empty form</source>
            <translation>无——空白表单</translation>
        </message>
        <message>
            <source>What the chosen server needs</source>
            <translation>所选服务器的要求</translation>
        </message>
        <message>
            <source>Start from</source>
            <translation>开始于</translation>
        </message>
        <message>
            <source>Environment</source>
            <translation>环境变量</translation>
        </message>
        <message>
            <source>Sign in with OAuth in the browser (tokens in the OS keyring)</source>
            <translation>在浏览器中通过 OAuth 登录（令牌保存在系统密钥环中）</translation>
        </message>
        <message>
            <source>Sign in with OAuth</source>
            <translation>通过 OAuth 登录</translation>
        </message>
        <message>
            <source>Headers</source>
            <translation>请求头</translation>
        </message>
        <message>
            <source>Sign-in</source>
            <translation>登录</translation>
        </message>
        <message>
            <source>Tool timeout</source>
            <translation>工具超时</translation>
        </message>
        <message>
            <source>A stdio server is a program on this computer: you approve its exact command before it is started for the first time. Credential headers (Authorization, API keys, tokens) are kept in the OS keyring, not in config.json.</source>
            <translation>stdio 服务器是本机上的程序：首次启动前，你需要批准它的完整命令。凭据类请求头（Authorization、API 密钥、令牌）保存在系统密钥环中，而不是 config.json 中。</translation>
        </message>
        <message>
            <source>MCP server form status</source>
            <translation>MCP 服务器表单状态</translation>
        </message>
        <message>
            <source>Cancel editing the MCP server</source>
            <translation>取消编辑 MCP 服务器</translation>
        </message>
        <message>
            <source>Continue</source>
            <translation>继续</translation>
        </message>
        <message>
            <source>Save the MCP server</source>
            <translation>保存 MCP 服务器</translation>
        </message>
        <message>
            <source>Edit MCP server “{name}”</source>
            <translation>编辑 MCP 服务器“{name}”</translation>
        </message>
        <message>
            <source>URL: {url}</source>
            <translation>URL：{url}</translation>
        </message>
        <message>
            <source>Runs: {command}</source>
            <translation>运行：{command}</translation>
        </message>
        <message>
            <source>Needs: {needs}.</source>
            <translation>需要：{needs}。</translation>
        </message>
        <message>
            <source>Documentation: {url}</source>
            <translation>文档：{url}</translation>
        </message>
        <message>
            <source>Replace each &lt;…&gt; with your own value.</source>
            <translation>请把每个 &lt;…&gt; 替换为你自己的值。</translation>
        </message>
        <message>
            <source>a server named {name} exists already</source>
            <translation>名为 {name} 的服务器已存在</translation>
        </message>
        <message>
            <source>replace {placeholder} with your own value</source>
            <translation>请把 {placeholder} 替换为你自己的值</translation>
        </message>
        <message>
            <source>enter the program to run</source>
            <translation>请输入要运行的程序</translation>
        </message>
        <message>
            <source>cannot split them ({error}); check the quotes</source>
            <translation>无法拆分参数（{error}），请检查引号</translation>
        </message>
        <message>
            <source>Server</source>
            <translation>服务器</translation>
        </message>
        <message>
            <source>type the value of {header}</source>
            <translation>请输入 {header} 的值</translation>
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
            <translation>内容</translation>
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
            <extracomment>The ledger's sources as the summary names them (others: as the ledger names them).</extracomment>
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
            <translation>记忆归档</translation>
        </message>
        <message>
            <source>dream</source>
            <translation>梦境整理</translation>
        </message>
        <message>
            <source>Everything</source>
            <translation>全部</translation>
        </message>
        <message>
            <source>Subagents</source>
            <translation>子智能体</translation>
        </message>
        <message>
            <source>Dream</source>
            <translation>梦境整理</translation>
        </message>
        <message>
            <source>Scheduled jobs</source>
            <translation>计划任务</translation>
        </message>
        <message>
            <source>Consolidation</source>
            <translation>记忆归档</translation>
        </message>
        <message>
            <source>Tokens / day</source>
            <translation>令牌 / 天</translation>
        </message>
        <message>
            <source>Tokens / month</source>
            <translation>令牌 / 月</translation>
        </message>
        <message>
            <source>$ / day</source>
            <translation>美元 / 天</translation>
        </message>
        <message>
            <source>$ / month</source>
            <translation>美元 / 月</translation>
        </message>
        <message>
            <source>heartbeat</source>
            <translation>心跳</translation>
        </message>
        <message>
            <source>cron</source>
            <translation>计划任务</translation>
        </message>
        <message>
            <source>{share} of {limit} tokens</source>
            <translation>{share}（上限 {limit} 令牌）</translation>
        </message>
        <message>
            <source>{share} of {limit}</source>
            <translation>{share}（上限 {limit}）</translation>
        </message>
        <message>
            <source>deleted chat</source>
            <translation>已删除的聊天</translation>
        </message>
        <message>
            <source>Source</source>
            <translation>来源</translation>
        </message>
        <message>
            <source>Today</source>
            <translation>今天</translation>
        </message>
        <message>
            <source>against the day</source>
            <translation>占每日预算</translation>
        </message>
        <message>
            <source>This month</source>
            <translation>本月</translation>
        </message>
        <message>
            <source>against the month</source>
            <translation>占每月预算</translation>
        </message>
        <message>
            <source>Top chats this month</source>
            <translation>本月用量最多的聊天</translation>
        </message>
        <message>
            <source>Top jobs this month</source>
            <translation>本月用量最多的任务</translation>
        </message>
        <message>
            <source>{count} tokens</source>
            <translation>{count} 令牌</translation>
        </message>
        <message>
            <source>* models without a known price are not in the dollar figures.</source>
            <translation>* 没有已知价格的模型不计入美元金额。</translation>
        </message>
        <message>
            <source>{row} {column}</source>
            <translation>{row} {column}</translation>
        </message>
        <message>
            <source>“{text}” is not a number</source>
            <translation>“{text}”不是数字</translation>
        </message>
        <message>
            <source>must not be negative</source>
            <translation>不能为负数</translation>
        </message>
        <message>
            <source>Every model call is counted in a ledger beside the config (usage/&lt;workspace id&gt;/ledger-*.jsonl), out of the agent's reach. Budgets pause Dream, the heartbeat, scheduled jobs and consolidation before they pass a limit and ask you; chats are warned, and stopped only with a hard cap.</source>
            <translation>每次模型调用都会记入配置旁的账本（usage/&lt;workspace id&gt;/ledger-*.jsonl），智能体无法触及。预算会在梦境整理、心跳、计划任务和记忆归档超出上限之前将其暂停并询问你；聊天只会收到警告，仅在设置硬上限时才会被停止。</translation>
        </message>
        <message>
            <source>Spend per day</source>
            <translation>每日花费</translation>
        </message>
        <message>
            <source>Tokens</source>
            <translation>令牌</translation>
        </message>
        <message>
            <source>Cost ($)</source>
            <translation>费用（美元）</translation>
        </message>
        <message>
            <source>Chart shows</source>
            <translation>图表显示</translation>
        </message>
        <message>
            <source>Refresh usage</source>
            <translation>刷新用量</translation>
        </message>
        <message>
            <source>Usage summary</source>
            <translation>用量摘要</translation>
        </message>
        <message>
            <source>Budgets</source>
            <translation>预算</translation>
        </message>
        <message>
            <source>Leave a field empty for no limit, or start from a preset on the right.</source>
            <translation>留空表示不限制，也可以从右侧的预设开始。</translation>
        </message>
        <message>
            <source>no limit</source>
            <translation>不限制</translation>
        </message>
        <message>
            <source>Warn chats at</source>
            <translation>聊天警告阈值</translation>
        </message>
        <message>
            <source>Stop chats at the limit (hard cap) instead of only warning</source>
            <translation>达到上限时停止聊天（硬上限），而不只是警告</translation>
        </message>
        <message>
            <source>Hard cap for chats</source>
            <translation>聊天硬上限</translation>
        </message>
        <message>
            <source> × usual</source>
            <translation> × 平常用量</translation>
        </message>
        <message>
            <source>Stop a background run past</source>
            <translation>后台运行超过此值时停止</translation>
        </message>
        <message>
            <source>Budget presets</source>
            <translation>预算预设</translation>
        </message>
        <message>
            <source>Presets</source>
            <translation>预设</translation>
        </message>
        <message>
            <source>Budget preset: {name}</source>
            <translation>预算预设：{name}</translation>
        </message>
        <message>
            <source>Budget preset in use</source>
            <translation>正在使用的预算预设</translation>
        </message>
        <message>
            <source>“{name}” filled in. Review the fields, then Save.</source>
            <translation>已填入“{name}”。请检查各字段，然后保存。</translation>
        </message>
        <message>
            <source>Now: {name}</source>
            <translation>当前：{name}</translation>
        </message>
        <message>
            <source>Now: your own</source>
            <translation>当前：自定义</translation>
        </message>
        <message>
            <source>Saved. Budgets apply from the next model call.</source>
            <translation>已保存。预算从下一次模型调用开始生效。</translation>
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
        <message>
            <source>The server refused the connection (is it running, and is the port right?)</source>
            <translation>服务器拒绝了连接（它是否在运行？端口是否正确？）</translation>
        </message>
        <message>
            <source>The server's name could not be found (check the host name)</source>
            <translation>找不到服务器（请检查主机名）</translation>
        </message>
        <message>
            <source>The server did not answer in time</source>
            <translation>服务器未能及时响应</translation>
        </message>
        <message>
            <source>All</source>
            <extracomment>The filters, in the order the view offers them, with their labels.</extracomment>
            <translation>全部</translation>
        </message>
        <message>
            <source>Active</source>
            <extracomment>Each status (:func:`status_of`) in words.</extracomment>
            <translation>活动</translation>
        </message>
        <message>
            <source>Paused</source>
            <translation>已暂停</translation>
        </message>
        <message>
            <source>Needs attention</source>
            <translation>需要关注</translation>
        </message>
        <message>
            <source>System</source>
            <translation>系统</translation>
        </message>
        <message>
            <source>Next run</source>
            <extracomment>The sort orders, with their labels.</extracomment>
            <translation>下次运行</translation>
        </message>
        <message>
            <source>Last run</source>
            <translation>上次运行</translation>
        </message>
        <message>
            <source>Name</source>
            <extracomment>The colour of a status that needs attention (light theme, dark theme).</extracomment>
            <translation>名称</translation>
        </message>
        <message>
            <source>last run failed</source>
            <extracomment>The problems that make a row need attention, in words.</extracomment>
            <translation>上次运行失败</translation>
        </message>
        <message>
            <source>delivery failed</source>
            <translation>送达失败</translation>
        </message>
        <message>
            <source>overdue</source>
            <translation>已逾期</translation>
        </message>
        <message>
            <source>Ran</source>
            <translation>已运行</translation>
        </message>
        <message>
            <source>10 min</source>
            <translation>10 分钟</translation>
        </message>
        <message>
            <source>1 hour</source>
            <translation>1 小时</translation>
        </message>
        <message>
            <source>Tomorrow</source>
            <translation>明天</translation>
        </message>
        <message>
            <source>Commands run inside bubblewrap: only the workspace and a private /tmp are writable; your home folder is replaced by a scratch folder (unless you let commands see it) and the config folder is hidden; the agent's sessions, memory history, cron jobs and memory repository stay read-only; the app's processes, the session bus and the keyring are out of reach; processes, memory, file size, /tmp and CPU time are limited; everything a command started ends with it, or with the app.</source>
            <translation>命令在 bubblewrap 中运行：只有工作区和私有的 /tmp 可写；你的主文件夹被替换为临时文件夹（除非你允许命令查看它），配置文件夹被隐藏；智能体的会话、记忆历史、计划任务和记忆仓库保持只读；应用的进程、会话总线和密钥环都无法触及；进程数、内存、文件大小、/tmp 和 CPU 时间均受限制；命令启动的一切都会随命令或应用一同结束。</translation>
        </message>
        <message>
            <source>Time</source>
            <translation>时间</translation>
        </message>
        <message>
            <source>Current time and conversions between time zones (an official reference server).</source>
            <translation>当前时间以及时区之间的换算（官方参考服务器）。</translation>
        </message>
        <message>
            <source>uv (the uvx command)</source>
            <translation>uv（uvx 命令）</translation>
        </message>
        <message>
            <source>Fetch</source>
            <translation>网页抓取</translation>
        </message>
        <message>
            <source>Fetches web pages and turns them into Markdown (an official reference server).</source>
            <translation>抓取网页并转换为 Markdown（官方参考服务器）。</translation>
        </message>
        <message>
            <source>Reads and changes one Git repository: status, diffs, log, commits.</source>
            <translation>读取并修改一个 Git 仓库：状态、差异、日志、提交。</translation>
        </message>
        <message>
            <source>uv (the uvx command) and the path of a Git repository</source>
            <translation>uv（uvx 命令）以及一个 Git 仓库的路径</translation>
        </message>
        <message>
            <source>Filesystem</source>
            <translation>文件系统</translation>
        </message>
        <message>
            <source>Reads and writes files inside the folders you list (an official reference server).</source>
            <translation>读写你所列文件夹中的文件（官方参考服务器）。</translation>
        </message>
        <message>
            <source>Node.js (the npx command) and the folders to share</source>
            <translation>Node.js（npx 命令）以及要共享的文件夹</translation>
        </message>
        <message>
            <source>Drives a local browser: open pages, click, fill forms, take snapshots.</source>
            <translation>操控本地浏览器：打开页面、点击、填写表单、截取快照。</translation>
        </message>
        <message>
            <source>Node.js (the npx command)</source>
            <translation>Node.js（npx 命令）</translation>
        </message>
        <message>
            <source>GitHub's hosted server: repositories, issues, pull requests.</source>
            <translation>GitHub 托管的服务器：仓库、议题、拉取请求。</translation>
        </message>
        <message>
            <source>a GitHub personal access token (kept in the OS keyring)</source>
            <translation>GitHub 个人访问令牌（保存在系统密钥环中）</translation>
        </message>
        <message>
            <source>Notion's hosted server: search, read and edit your pages and databases.</source>
            <translation>Notion 托管的服务器：搜索、阅读和编辑你的页面与数据库。</translation>
        </message>
        <message>
            <source>a Notion account (sign in in the browser after saving)</source>
            <translation>Notion 账户（保存后在浏览器中登录）</translation>
        </message>
        <message>
            <source>Linear's hosted server: issues, projects and comments.</source>
            <translation>Linear 托管的服务器：议题、项目和评论。</translation>
        </message>
        <message>
            <source>a Linear account (sign in in the browser after saving)</source>
            <translation>Linear 账户（保存后在浏览器中登录）</translation>
        </message>
        <message>
            <source>Searches and reads Microsoft's official documentation.</source>
            <translation>搜索并阅读 Microsoft 官方文档。</translation>
        </message>
        <message>
            <source>network access only</source>
            <translation>只需网络访问</translation>
        </message>
        <message>
            <source>Web search and page contents through Exa's hosted server.</source>
            <translation>通过 Exa 托管的服务器进行网页搜索并获取页面内容。</translation>
        </message>
        <message>
            <source>Agent</source>
            <translation>智能体</translation>
        </message>
        <message>
            <source>How the agent thinks and where it keeps its files.</source>
            <translation>智能体如何思考，以及它把文件存放在哪里。</translation>
        </message>
        <message>
            <source>system timezone ({zone})</source>
            <translation>系统时区（{zone}）</translation>
        </message>
        <message>
            <source>The context window is how much of the conversation the model sees; older turns are archived into memory when it fills. Timezone: an IANA name such as Europe/Berlin; empty means the system's.</source>
            <translation>上下文窗口是模型能看到的对话长度；窗口占满时，较早的轮次会归档到记忆中。时区：IANA 名称，例如 Europe/Berlin；留空表示使用系统时区。</translation>
        </message>
        <message>
            <source>Sessions, memory, skills and reminders live in the workspace. Open an existing nanobot workspace to keep going where you left off; missing starter files are added, yours are never overwritten. A new workspace takes effect after a restart.</source>
            <translation>会话、记忆、技能和提醒都保存在工作区中。打开已有的 nanobot 工作区即可从上次停下的地方继续；缺少的初始文件会被补上，你自己的文件绝不会被覆盖。新的工作区在重启后生效。</translation>
        </message>
        <message>
            <source>{zone} is not a known IANA timezone (e.g. Europe/Berlin)</source>
            <translation>{zone} 不是已知的 IANA 时区（例如 Europe/Berlin）</translation>
        </message>
        <message>
            <source>choose a folder</source>
            <translation>请选择一个文件夹</translation>
        </message>
        <message>
            <source>{path} is a file, not a folder</source>
            <translation>{path} 是文件，不是文件夹</translation>
        </message>
        <message>
            <source>must be smaller than the context window</source>
            <translation>必须小于上下文窗口</translation>
        </message>
        <message>
            <source>Saved, but the workspace could not be prepared: {error}</source>
            <translation>已保存，但无法准备工作区：{error}</translation>
        </message>
        <message>
            <source>Saved. Added {count} starter file(s). The new workspace is used after a restart.</source>
            <translation>已保存。已添加 {count} 个初始文件。新的工作区将在重启后使用。</translation>
        </message>
        <message>
            <source>Saved. The new workspace is used after a restart.</source>
            <translation>已保存。新的工作区将在重启后使用。</translation>
        </message>
        <message>
            <source>Past runs</source>
            <translation>运行记录</translation>
        </message>
        <message>
            <source>Past runs of the selected automation</source>
            <translation>所选自动化的运行记录</translation>
        </message>
        <message>
            <source>Local trigger</source>
            <translation>本地触发</translation>
        </message>
        <message>
            <source>Run it from a terminal, a script or another program's hook: the command runs the job at once, in its own process, prints what it says, and leaves a receipt here.</source>
            <translation>可在终端、脚本或其他程序的钩子中运行：该命令会在独立进程中立即运行任务，打印其输出，并在这里留下回执。</translation>
        </message>
        <message>
            <source>Command that runs the selected automation</source>
            <translation>运行所选自动化的命令</translation>
        </message>
        <message>
            <source>Copy the command</source>
            <translation>复制命令</translation>
        </message>
        <message>
            <source>Copy status</source>
            <translation>复制状态</translation>
        </message>
        <message>
            <source>Select an automation to see its runs.</source>
            <translation>选择一个自动化以查看其运行记录。</translation>
        </message>
        <message>
            <source>Select an automation</source>
            <translation>选择一个自动化</translation>
        </message>
        <message>
            <source>Past runs of “{name}”</source>
            <translation>“{name}”的运行记录</translation>
        </message>
        <message>
            <source>No runs yet.</source>
            <translation>尚无运行记录。</translation>
        </message>
        <message>
            <source>It ran and left the schedule</source>
            <translation>已运行并移出计划</translation>
        </message>
        <message>
            <source>Copied</source>
            <translation>已复制</translation>
        </message>
        <message>
            <source>Every … minutes</source>
            <translation>每隔 … 分钟</translation>
        </message>
        <message>
            <source>Cron expression</source>
            <translation>Cron 表达式</translation>
        </message>
        <message>
            <source>Once at …</source>
            <translation>在 … 运行一次</translation>
        </message>
        <message>
            <source>New reminders are posted in the desktop's Reminders chat.</source>
            <translation>新的提醒会发布到桌面端的“提醒”聊天中。</translation>
        </message>
        <message>
            <source>Reminder name</source>
            <translation>提醒名称</translation>
        </message>
        <message>
            <source>Reminder message</source>
            <translation>提醒内容</translation>
        </message>
        <message>
            <source>What should I remind you of?</source>
            <translation>要提醒你什么？</translation>
        </message>
        <message>
            <source>Schedule kind</source>
            <translation>计划类型</translation>
        </message>
        <message>
            <source>Schedule value</source>
            <translation>计划值</translation>
        </message>
        <message>
            <source>Schedule</source>
            <translation>计划</translation>
        </message>
        <message>
            <source>Add reminder</source>
            <translation>添加提醒</translation>
        </message>
        <message>
            <source>Save the reminder</source>
            <translation>保存提醒</translation>
        </message>
        <message>
            <source>Save changes</source>
            <translation>保存更改</translation>
        </message>
        <message>
            <source>'{value}' is not a number of minutes.</source>
            <translation>“{value}”不是有效的分钟数。</translation>
        </message>
        <message>
            <source>Status</source>
            <translation>状态</translation>
        </message>
        <message>
            <source>every {interval}</source>
            <extracomment>The schedule in words (:func:`desktop.core.cron.spec.describe_schedule`), by its first word.</extracomment>
            <translation>每 {interval}</translation>
        </message>
        <message>
            <source>cron {expression}</source>
            <translation>cron {expression}</translation>
        </message>
        <message>
            <source>at {time}</source>
            <translation>于 {time}</translation>
        </message>
        <message>
            <source>{count}d</source>
            <extracomment>An ``every`` interval's unit.</extracomment>
            <translation>{count} 天</translation>
        </message>
        <message>
            <source>{count}h</source>
            <translation>{count} 小时</translation>
        </message>
        <message>
            <source>{count}m</source>
            <translation>{count} 分钟</translation>
        </message>
        <message>
            <source>{count}s</source>
            <translation>{count} 秒</translation>
        </message>
        <message>
            <source>Automations</source>
            <translation>自动化</translation>
        </message>
        <message>
            <source>F2 renames the selected automation, Delete deletes it, the menu key shows its actions</source>
            <translation>F2 重命名所选自动化，Delete 删除它，菜单键显示其操作</translation>
        </message>
        <message>
            <source>words, name:…, schedule:cron, status:paused / failed / overdue / system</source>
            <extracomment>How long the Undo of a delete is offered.</extracomment>
            <translation>关键词、name:…、schedule:cron、status:paused / failed / overdue / system</translation>
        </message>
        <message>
            <source>Everything that runs on a schedule: your reminders, tasks the assistant set up, and the system's own (Dream, heartbeat). Each run leaves a receipt: delivered where, failed why, caught up late, skipped. A one-time reminder stays here for {days} days after it ran. Times are in your time zone.</source>
            <translation>所有按计划运行的内容：你的提醒、助手设置的任务，以及系统自身的任务（梦境整理、心跳）。每次运行都会留下回执：送达何处、失败原因、延迟补跑或已跳过。一次性提醒在运行后会在这里保留 {days} 天。时间均为你所在的时区。</translation>
        </message>
        <message>
            <source>Show</source>
            <translation>显示</translation>
        </message>
        <message>
            <source>Search automations</source>
            <translation>搜索自动化</translation>
        </message>
        <message>
            <source>Sort by</source>
            <translation>排序方式</translation>
        </message>
        <message>
            <source>Refresh</source>
            <translation>刷新</translation>
        </message>
        <message>
            <source>Refresh the automations</source>
            <translation>刷新自动化列表</translation>
        </message>
        <message>
            <source>Read the automations again (F5)</source>
            <translation>重新读取自动化（F5）</translation>
        </message>
        <message>
            <source>&amp;Show</source>
            <translation>显示(&amp;S)</translation>
        </message>
        <message>
            <source>Searc&amp;h</source>
            <translation>搜索(&amp;H)</translation>
        </message>
        <message>
            <source>S&amp;ort</source>
            <translation>排序(&amp;O)</translation>
        </message>
        <message>
            <source>No automations</source>
            <translation>没有自动化</translation>
        </message>
        <message>
            <source>New</source>
            <translation>新建</translation>
        </message>
        <message>
            <source>New reminder</source>
            <translation>新建提醒</translation>
        </message>
        <message>
            <source>Run now</source>
            <translation>立即运行</translation>
        </message>
        <message>
            <source>Run the selected automation now</source>
            <translation>立即运行所选自动化</translation>
        </message>
        <message>
            <source>Pause</source>
            <translation>暂停</translation>
        </message>
        <message>
            <source>Pause or resume the selected automation</source>
            <translation>暂停或恢复所选自动化</translation>
        </message>
        <message>
            <source>Rename the selected automation</source>
            <translation>重命名所选自动化</translation>
        </message>
        <message>
            <source>Rename in place (F2)</source>
            <translation>就地重命名（F2）</translation>
        </message>
        <message>
            <source>Snooze</source>
            <translation>稍后提醒</translation>
        </message>
        <message>
            <source>Remind me of the selected reminder again later</source>
            <translation>稍后再次提醒我所选的提醒</translation>
        </message>
        <message>
            <source>Delete the selected automation</source>
            <translation>删除所选自动化</translation>
        </message>
        <message>
            <source>Delete (Del); Undo brings it back</source>
            <translation>删除（Del）；撤销可恢复</translation>
        </message>
        <message>
            <source>The agent is not running yet; automations show once it is.</source>
            <translation>智能体尚未运行；运行后将显示自动化。</translation>
        </message>
        <message>
            <source>{filter} ({count})</source>
            <translation>{filter}（{count}）</translation>
        </message>
        <message>
            <source>No automations yet.
Ask the assistant in a chat (“remind me every weekday at 9 to stretch”), or add a reminder below.</source>
            <translation>还没有自动化。
可以在聊天中让助手设置（“每个工作日 9 点提醒我伸展一下”），或在下方添加提醒。</translation>
        </message>
        <message>
            <source>No status called “{words}”.
Try status:active, paused, failed or overdue.</source>
            <translation>没有名为“{words}”的状态。
请尝试 status:active、paused、failed 或 overdue。</translation>
        </message>
        <message>
            <source>No automations match this view.
Clear the search or show All.</source>
            <translation>没有符合此视图的自动化。
请清除搜索或显示全部。</translation>
        </message>
        <message>
            <source>Resume</source>
            <translation>恢复</translation>
        </message>
        <message>
            <source>Actions for {name}</source>
            <translation>{name} 的操作</translation>
        </message>
        <message>
            <source>Copy command</source>
            <translation>复制命令</translation>
        </message>
        <message>
            <source>Saved '{name}'.</source>
            <translation>已保存“{name}”。</translation>
        </message>
        <message>
            <source>Running '{name}'…</source>
            <translation>正在运行“{name}”…</translation>
        </message>
        <message>
            <source>Not run: {error}</source>
            <translation>未运行：{error}</translation>
        </message>
        <message>
            <source>Ran '{name}'; its receipt is under Past runs.</source>
            <translation>已运行“{name}”；回执见“运行记录”。</translation>
        </message>
        <message>
            <source>Resumed '{name}'.</source>
            <translation>已恢复“{name}”。</translation>
        </message>
        <message>
            <source>Paused '{name}'.</source>
            <translation>已暂停“{name}”。</translation>
        </message>
        <message>
            <source>Not renamed: {error}</source>
            <translation>未重命名：{error}</translation>
        </message>
        <message>
            <source>Renamed to '{name}'.</source>
            <translation>已重命名为“{name}”。</translation>
        </message>
        <message>
            <source>Not deleted: {error}</source>
            <translation>未删除：{error}</translation>
        </message>
        <message>
            <source>Deleted “{name}”. Its receipts are kept.</source>
            <translation>已删除“{name}”。其回执仍会保留。</translation>
        </message>
        <message>
            <source>Not put back: {error}</source>
            <translation>未恢复：{error}</translation>
        </message>
        <message>
            <source>Put '{name}' back.</source>
            <translation>已恢复“{name}”。</translation>
        </message>
        <message>
            <source>'{name}' has not run yet; there is nothing to snooze.</source>
            <translation>“{name}”尚未运行，没有可稍后提醒的内容。</translation>
        </message>
        <message>
            <source>Snoozed '{name}': back at {time}.</source>
            <translation>已推迟“{name}”：将于 {time} 再次提醒。</translation>
        </message>
        <message>
            <source>Start at login is not supported on this platform yet.</source>
            <translation>此平台暂不支持登录时启动。</translation>
        </message>
        <message>
            <source>A few dollars a month</source>
            <translation>每月几美元</translation>
        </message>
        <message>
            <source>Everything: $5 a month, $0.50 a day. Dream 20,000 and the heartbeat 5,000 tokens a day; scheduled jobs 50,000.</source>
            <translation>全部：每月 5 美元，每天 0.50 美元。梦境整理每天 20,000 令牌，心跳每天 5,000 令牌；计划任务 50,000。</translation>
        </message>
        <message>
            <source>About $20 a month</source>
            <translation>每月约 20 美元</translation>
        </message>
        <message>
            <source>Everything: $20 a month, $2 a day. Dream 50,000 and the heartbeat 10,000 tokens a day; scheduled jobs 200,000.</source>
            <translation>全部：每月 20 美元，每天 2 美元。梦境整理每天 50,000 令牌，心跳每天 10,000 令牌；计划任务 200,000。</translation>
        </message>
        <message>
            <source>About $100 a month</source>
            <translation>每月约 100 美元</translation>
        </message>
        <message>
            <source>Everything: $100 a month, $10 a day. Dream 200,000 and the heartbeat 50,000 tokens a day; scheduled jobs 1,000,000.</source>
            <translation>全部：每月 100 美元，每天 10 美元。梦境整理每天 200,000 令牌，心跳每天 50,000 令牌；计划任务 1,000,000。</translation>
        </message>
        <message>
            <source>No limit</source>
            <translation>不限制</translation>
        </message>
        <message>
            <source>Every field empty: nothing is paused or stopped for spend.</source>
            <translation>所有字段留空：不会因花费而暂停或停止任何内容。</translation>
        </message>
        <message>
            <source>Not running. Enable it and save: it connects (or use Connect).</source>
            <translation>未运行。启用并保存后即会连接（也可点“连接”）。</translation>
        </message>
        <message>
            <source>On your phone open WhatsApp → Settings → Linked devices → Link a device</source>
            <translation>在手机上打开 WhatsApp → 设置 → 已关联设备 → 关联新设备</translation>
        </message>
        <message>
            <source>On your phone open WeChat → + → Scan</source>
            <translation>在手机上打开微信 → + → 扫一扫</translation>
        </message>
        <message>
            <source>A code that expires unscanned is replaced by a new one here.</source>
            <translation>二维码过期未扫时，这里会换上新的二维码。</translation>
        </message>
        <message>
            <source>How to get it</source>
            <translation>获取方法</translation>
        </message>
        <message>
            <source>{channel} channel status</source>
            <translation>{channel} 渠道状态</translation>
        </message>
        <message>
            <source>Open {channel} on your phone</source>
            <translation>在手机上打开 {channel}</translation>
        </message>
        <message>
            <source>What you need from {channel}</source>
            <translation>需要从 {channel} 获取的信息</translation>
        </message>
        <message>
            <source>Test connection</source>
            <translation>测试连接</translation>
        </message>
        <message>
            <source>Test the {channel} connection</source>
            <translation>测试 {channel} 连接</translation>
        </message>
        <message>
            <source>A cheap real call with the values shown here (not saved)</source>
            <translation>用这里填写的值发起一次低成本的真实调用（不会保存）</translation>
        </message>
        <message>
            <source>Connect</source>
            <translation>连接</translation>
        </message>
        <message>
            <source>Connect or disconnect {channel}</source>
            <translation>连接或断开 {channel}</translation>
        </message>
        <message>
            <source>{channel} test result</source>
            <translation>{channel} 测试结果</translation>
        </message>
        <message>
            <source>Who may talk to the agent</source>
            <translation>谁可以与智能体对话</translation>
        </message>
        <message>
            <source>Advanced</source>
            <translation>高级</translation>
        </message>
        <message>
            <source>{channel} advanced</source>
            <translation>{channel} 高级设置</translation>
        </message>
        <message>
            <source>Enable the {channel} channel</source>
            <translation>启用 {channel} 渠道</translation>
        </message>
        <message>
            <source>one entry per line</source>
            <translation>每行一项</translation>
        </message>
        <message>
            <source>User IDs or names allowed to talk to the bot, one per line.</source>
            <translation>允许与机器人对话的用户 ID 或名称，每行一个。</translation>
        </message>
        <message>
            <source>Kept as they are (nanobot settings not used or not edited here): {names}.</source>
            <translation>保持原样（此处不使用或不编辑的 nanobot 设置）：{names}。</translation>
        </message>
        <message>
            <source>The agent is not running yet.</source>
            <translation>智能体尚未运行。</translation>
        </message>
        <message>
            <source>Disconnect</source>
            <translation>断开</translation>
        </message>
        <message>
            <source>{reason}: scan the QR code below.</source>
            <translation>{reason}：请扫描下方二维码。</translation>
        </message>
        <message>
            <source>Linked: your {channel} account is linked.</source>
            <translation>已关联：你的 {channel} 账号已关联。</translation>
        </message>
        <message>
            <source>Connected as {account}.</source>
            <translation>已连接，账号：{account}。</translation>
        </message>
        <message>
            <source>Connected.</source>
            <translation>已连接。</translation>
        </message>
        <message>
            <source>Connecting…</source>
            <translation>正在连接…</translation>
        </message>
        <message>
            <source>Disconnected: {reason}. {hint}</source>
            <translation>已断开：{reason}。{hint}</translation>
        </message>
        <message>
            <source>Cannot run: {reason}. {hint}</source>
            <translation>无法运行：{reason}。{hint}</translation>
        </message>
        <message>
            <source>Testing…</source>
            <translation>正在测试…</translation>
        </message>
        <message>
            <source>This channel has no connection test yet.</source>
            <translation>此渠道暂不支持连接测试。</translation>
        </message>
        <message>
            <source>It does not work: {error}</source>
            <translation>连接失败：{error}</translation>
        </message>
        <message>
            <source>{reason}.</source>
            <translation>{reason}。</translation>
        </message>
        <message>
            <source>{reason}. {hint}</source>
            <translation>{reason}。{hint}</translation>
        </message>
        <message>
            <source>Installing {channel} support…</source>
            <translation>正在安装 {channel} 支持组件…</translation>
        </message>
        <message>
            <source>The install failed: {error}</source>
            <translation>安装失败：{error}</translation>
        </message>
        <message>
            <source>Eyes</source>
            <translation>眼睛</translation>
        </message>
        <message>
            <source>Thumbs up</source>
            <translation>点赞</translation>
        </message>
        <message>
            <source>Thinking face</source>
            <translation>思考</translation>
        </message>
        <message>
            <source>Writing hand</source>
            <translation>写字的手</translation>
        </message>
        <message>
            <source>Hourglass</source>
            <translation>沙漏</translation>
        </message>
        <message>
            <source>Wrench</source>
            <translation>扳手</translation>
        </message>
        <message>
            <source>Lightning</source>
            <translation>闪电</translation>
        </message>
        <message>
            <source>Fire</source>
            <translation>火焰</translation>
        </message>
        <message>
            <source>OK hand</source>
            <translation>OK 手势</translation>
        </message>
        <message>
            <source>Folded hands</source>
            <translation>双手合十</translation>
        </message>
        <message>
            <source>Saluting face</source>
            <translation>敬礼</translation>
        </message>
        <message>
            <source>Technologist</source>
            <translation>程序员</translation>
        </message>
        <message>
            <source>Nerd face</source>
            <translation>书呆子</translation>
        </message>
        <message>
            <source>Party popper</source>
            <translation>礼花</translation>
        </message>
        <message>
            <source>Red heart</source>
            <translation>红心</translation>
        </message>
        <message>
            <source>Handshake</source>
            <translation>握手</translation>
        </message>
        <message>
            <source>Cool</source>
            <translation>酷</translation>
        </message>
        <message>
            <source>Gear</source>
            <translation>齿轮</translation>
        </message>
        <message>
            <source>Hammer and wrench</source>
            <translation>锤子和扳手</translation>
        </message>
        <message>
            <source>In Telegram, open a chat with @BotFather, send /newbot and choose a name and a user name for your bot. BotFather answers with a token like 123456789:AA…: paste it here. For Allowed senders you need your numeric user id: @userinfobot tells you yours.</source>
            <translation>在 Telegram 中打开与 @BotFather 的对话，发送 /newbot，为机器人取一个名称和用户名。BotFather 会回复一个形如 123456789:AA… 的令牌：粘贴到这里。“允许的发送者”需要填写你的数字用户 ID：@userinfobot 会告诉你。</translation>
        </message>
        <message>
            <source>Open @BotFather</source>
            <translation>打开 @BotFather</translation>
        </message>
        <message>
            <source>In the Developer Portal create an application, open Bot, press Reset Token and paste the token here; on the same page turn on Message Content Intent. Invite the bot with OAuth2 → URL Generator (scope bot; Send Messages, Read Message History, Add Reactions). For Allowed senders turn on Developer Mode in Discord and use Copy User ID on yourself.</source>
            <translation>在 Developer Portal 中创建一个应用，打开 Bot，点击 Reset Token，把令牌粘贴到这里；并在同一页面开启 Message Content Intent。通过 OAuth2 → URL Generator 邀请机器人（scope 选 bot；权限选 Send Messages、Read Message History、Add Reactions）。“允许的发送者”：在 Discord 中开启开发者模式，然后对自己使用“复制用户 ID”。</translation>
        </message>
        <message>
            <source>Discord Developer Portal</source>
            <translation>Discord 开发者门户</translation>
        </message>
        <message>
            <source>Create an app at api.slack.com/apps and turn on Socket Mode: it makes the app token (xapp-…, scope connections:write). Under OAuth &amp; Permissions add the bot scopes chat:write, reactions:write, app_mentions:read and im:history, subscribe to the message.im and app_mention events, then install the app to your workspace and copy the Bot User OAuth Token (xoxb-…). Your member id (for Allowed senders) is in your Slack profile → ⋮ → Copy member ID.</source>
            <translation>在 api.slack.com/apps 创建应用并开启 Socket Mode：这会生成应用令牌（xapp-…，scope 为 connections:write）。在 OAuth &amp; Permissions 中添加机器人 scope：chat:write、reactions:write、app_mentions:read 和 im:history，订阅 message.im 和 app_mention 事件，然后把应用安装到你的 Slack 工作区，并复制 Bot User OAuth Token（xoxb-…）。你的成员 ID（用于“允许的发送者”）在 Slack 个人资料 → ⋮ → 复制成员 ID。</translation>
        </message>
        <message>
            <source>Your Slack apps</source>
            <translation>你的 Slack 应用</translation>
        </message>
        <message>
            <source>Use a mailbox of its own for the agent. Your mail provider's help lists its IMAP (incoming) and SMTP (outgoing) servers; with two-step sign-in (Gmail, Outlook, iCloud) create an app password and use it instead of the account password. Put your own address under Allowed senders.</source>
            <translation>请为智能体使用一个单独的邮箱。你的邮件服务商的帮助页面会列出 IMAP（收信）和 SMTP（发信）服务器；如果开启了两步验证（Gmail、Outlook、iCloud），请创建应用专用密码来代替账号密码。把你自己的邮箱地址填到“允许的发送者”中。</translation>
        </message>
        <message>
            <source>App passwords (Gmail)</source>
            <translation>应用专用密码（Gmail）</translation>
        </message>
        <message>
            <source>Create an account for the bot on your homeserver (any Matrix client can register one), sign in with it in Element and copy its access token from Settings → Help &amp; About → Advanced; or give the account's password instead. Allowed senders are full Matrix ids like @you:matrix.org.</source>
            <translation>在你的 homeserver 上为机器人注册一个账号（任何 Matrix 客户端都能注册），用它登录 Element，从 设置 → 帮助与关于 → 高级 中复制访问令牌；也可以改填该账号的密码。“允许的发送者”填写完整的 Matrix ID，例如 @you:matrix.org。</translation>
        </message>
        <message>
            <source>Matrix clients</source>
            <translation>Matrix 客户端</translation>
        </message>
        <message>
            <source>The app joins your WhatsApp account as a linked device, like WhatsApp Web. Enable the channel and press Connect: a QR code appears here; scan it from WhatsApp on your phone (Settings → Linked devices → Link a device). The session is kept where nanobot keeps it, so one linking serves both. Allowed senders are phone numbers in international form without +.</source>
            <translation>本应用会像 WhatsApp Web 一样，作为已关联设备加入你的 WhatsApp 账号。启用此渠道并点击“连接”：这里会显示二维码；用手机上的 WhatsApp 扫描（设置 → 已关联设备 → 关联新设备）。登录信息保存在 nanobot 保存的位置，关联一次两边都能用。“允许的发送者”填写国际格式、不带 + 的手机号码。</translation>
        </message>
        <message>
            <source>About linked devices</source>
            <translation>关于已关联设备</translation>
        </message>
        <message>
            <source>In the Feishu (or Lark) developer console create a self-built app, add the Bot ability, grant it the im:message permissions, and under Events &amp; Callbacks choose the long connection and add the im.message.receive_v1 event; publish a version. The App ID and App Secret are under Credentials &amp; Basic Info. Allowed senders are open ids (ou_…).</source>
            <translation>在飞书（或 Lark）开发者后台创建企业自建应用，添加“机器人”能力，授予 im:message 相关权限，并在“事件与回调”中选择长连接方式、添加 im.message.receive_v1 事件；然后发布一个版本。App ID 和 App Secret 在“凭证与基础信息”中。“允许的发送者”填写 open id（ou_…）。</translation>
        </message>
        <message>
            <source>Feishu developer console</source>
            <translation>飞书开发者后台</translation>
        </message>
        <message>
            <source>In the DingTalk developer console create an app, add the Robot ability with Stream mode as the way messages arrive, and publish it. Its Client ID and Client Secret are on the app's Credentials page. Allowed senders are staff ids.</source>
            <translation>在钉钉开发者后台创建应用，添加“机器人”能力，消息接收模式选择 Stream 模式，然后发布。Client ID 和 Client Secret 在应用的“凭证”页面。“允许的发送者”填写员工 ID（staffId）。</translation>
        </message>
        <message>
            <source>DingTalk developer console</source>
            <translation>钉钉开发者后台</translation>
        </message>
        <message>
            <source>On the QQ Open Platform register as a developer and create a bot; its AppID and AppSecret are under Development → Settings. Until the bot is published, add yourself to its sandbox to talk to it. Allowed senders are your openid as the bot sees it.</source>
            <translation>在 QQ 开放平台注册成为开发者并创建机器人；AppID 和 AppSecret 在 开发 → 开发设置 中。机器人发布之前，请把自己加入它的沙箱才能与它对话。“允许的发送者”填写机器人看到的你的 openid。</translation>
        </message>
        <message>
            <source>QQ Open Platform</source>
            <translation>QQ 开放平台</translation>
        </message>
        <message>
            <source>Register the agent with your Mochat server: registration gives a claw token (claw_…) and the agent's own user id. Then list the sessions (direct chats) and panels (group channels) it answers in, or "*" for all of them.</source>
            <translation>在你的 Mochat 服务器上注册智能体：注册后会得到一个 claw 令牌（claw_…）和智能体自己的用户 ID。然后列出它要回复的会话（私聊）和面板（群组频道），或填 "*" 表示全部。</translation>
        </message>
        <message>
            <source>The agent listens here and browsers, phones and scripts connect to it with nanobot's WebSocket protocol. To open nanobot's WebUI from a phone on your network, listen on 0.0.0.0, set a token issue secret (the WebUI asks for it at login) and open http://&lt;this computer's address&gt;:&lt;port&gt;/ on the phone. Without a token or secret it only listens on this computer.</source>
            <translation>智能体在这里监听，浏览器、手机和脚本通过 nanobot 的 WebSocket 协议连接它。要在同一网络的手机上打开 nanobot 的 WebUI：监听 0.0.0.0，设置令牌签发密钥（WebUI 登录时会要求输入），然后在手机上打开 http://&lt;本机地址&gt;:&lt;端口&gt;/。未设置令牌或密钥时，只在本机上监听。</translation>
        </message>
        <message>
            <source>nanobot's WebUI</source>
            <translation>nanobot 的 WebUI</translation>
        </message>
        <message>
            <source>Register a phone number for the agent with signal-cli (or link it to your Signal app as a device) and keep its daemon running: signal-cli -a +NUMBER daemon --http localhost:8080. Allowed senders are phone numbers or Signal UUIDs; group rules (dm, group) are nanobot's and kept in config.json.</source>
            <translation>用 signal-cli 为智能体注册一个手机号（或作为设备关联到你的 Signal 应用），并保持它的守护进程运行：signal-cli -a +NUMBER daemon --http localhost:8080。“允许的发送者”填写手机号或 Signal UUID；群组规则（dm、group）属于 nanobot 的设置，保存在 config.json 中。</translation>
        </message>
        <message>
            <source>Run NapCat with the QQ account logged in (scan its QR code in NapCat's web UI), then add a WebSocket server under Network configuration (message format: array) with an access token. Allowed senders are QQ numbers.</source>
            <translation>运行 NapCat 并登录 QQ 账号（在 NapCat 的网页界面中扫码），然后在“网络配置”中添加一个 WebSocket 服务器（消息格式：array），并设置访问令牌。“允许的发送者”填写 QQ 号。</translation>
        </message>
        <message>
            <source>In Mattermost open Integrations → Bot Accounts → Add Bot Account (a system admin may first have to turn bot accounts on), then Create New Token and copy it. Add the bot to the teams and channels it should answer in. The server address is the one you open Mattermost at. Your user id (for Allowed senders) is under your avatar → Profile → ⋮ → Copy user ID.</source>
            <translation>在 Mattermost 中打开 Integrations → Bot Accounts → Add Bot Account（可能需要系统管理员先开启机器人账号），然后点 Create New Token 并复制令牌。把机器人加入它要回复的团队和频道。服务器地址就是你打开 Mattermost 的地址。你的用户 ID（用于“允许的发送者”）在 头像 → 个人资料 → ⋮ → 复制用户 ID。</translation>
        </message>
        <message>
            <source>Mattermost bot accounts</source>
            <translation>Mattermost 机器人账号</translation>
        </message>
        <message>
            <source>Create an Azure Bot (Azure portal → Create a resource → Azure Bot) and copy its Microsoft App ID; under Configuration → Manage Password add a client secret. Set its messaging endpoint to https://&lt;your public host&gt;&lt;path&gt;, forwarded (e.g. by a tunnel) to this port, and add the Microsoft Teams channel. Allowed senders are Entra object ids (Teams admin center or Entra ID → Users → Object ID).</source>
            <translation>创建一个 Azure Bot（Azure 门户 → 创建资源 → Azure Bot）并复制它的 Microsoft App ID；在 配置 → 管理密码 中添加客户端密码。把消息终结点设为 https://&lt;你的公网主机&gt;&lt;path&gt;，并（例如通过隧道）转发到本机的这个端口，然后添加 Microsoft Teams 渠道。“允许的发送者”填写 Entra 对象 ID（Teams 管理中心，或 Entra ID → 用户 → 对象 ID）。</translation>
        </message>
        <message>
            <source>Teams Developer Portal</source>
            <translation>Teams 开发者门户</translation>
        </message>
        <message>
            <source>In the WeCom admin console create an AI bot (智能机器人) and choose the API mode with a long connection: no public address is needed. Its Bot ID and Secret are shown there. Allowed senders are WeCom user ids (userid).</source>
            <translation>在企业微信管理后台创建一个智能机器人，选择 API 模式并使用长连接：无需公网地址。Bot ID 和 Secret 会显示在那里。“允许的发送者”填写企业微信用户 ID（userid）。</translation>
        </message>
        <message>
            <source>WeCom developer center</source>
            <translation>企业微信开发者中心</translation>
        </message>
        <message>
            <source>Enable the channel and save: a QR code appears here; scan it with WeChat on your phone and confirm (or run 'nanobot-desktop channels login weixin' in a terminal). The login is kept in the weixin folder beside config.json, shared with nanobot. Allowed senders are WeChat ids (…@im.wechat).</source>
            <translation>启用此渠道并保存：这里会显示二维码；用手机微信扫码并确认（也可以在终端运行 'nanobot-desktop channels login weixin'）。登录信息保存在 config.json 旁的 weixin 文件夹中，与 nanobot 共用。“允许的发送者”填写微信 ID（…@im.wechat）。</translation>
        </message>
        <message>
            <source>Telegram bot</source>
            <translation>Telegram 机器人</translation>
        </message>
        <message>
            <source>Discord bot</source>
            <translation>Discord 机器人</translation>
        </message>
        <message>
            <source>Slack app in Socket Mode</source>
            <translation>Socket Mode 下的 Slack 应用</translation>
        </message>
        <message>
            <source>Feishu / Lark over a WebSocket long connection</source>
            <translation>通过 WebSocket 长连接接入飞书 / Lark</translation>
        </message>
        <message>
            <source>DingTalk robot in stream mode</source>
            <translation>Stream 模式的钉钉机器人</translation>
        </message>
        <message>
            <source>Email: IMAP in, SMTP out</source>
            <translation>电子邮件：IMAP 收信，SMTP 发信</translation>
        </message>
        <message>
            <source>Matrix (Element and any other Matrix client)</source>
            <translation>Matrix（Element 及其他任何 Matrix 客户端）</translation>
        </message>
        <message>
            <source>QQ bot (QQ Open Platform)</source>
            <translation>QQ 机器人（QQ 开放平台）</translation>
        </message>
        <message>
            <source>WhatsApp, linked to your account as a device (like WhatsApp Web)</source>
            <translation>WhatsApp，作为设备关联到你的账号（类似 WhatsApp Web）</translation>
        </message>
        <message>
            <source>Mochat (Socket.IO)</source>
            <translation>Mochat（Socket.IO）</translation>
        </message>
        <message>
            <source>WebSocket server (browsers and phones connect to us)</source>
            <translation>WebSocket 服务器（供浏览器和手机连接）</translation>
        </message>
        <message>
            <source>Signal through a signal-cli daemon (its HTTP JSON-RPC interface)</source>
            <translation>通过 signal-cli 守护进程接入 Signal（其 HTTP JSON-RPC 接口）</translation>
        </message>
        <message>
            <source>QQ through NapCat's OneBot v11 WebSocket server</source>
            <translation>通过 NapCat 的 OneBot v11 WebSocket 服务器接入 QQ</translation>
        </message>
        <message>
            <source>A Mattermost bot account, over the REST API v4 and its WebSocket</source>
            <translation>Mattermost 机器人账号，通过 REST API v4 及其 WebSocket 接入</translation>
        </message>
        <message>
            <source>A Microsoft Teams bot (Azure Bot registration) receiving on a local HTTP endpoint</source>
            <translation>Microsoft Teams 机器人（Azure Bot 注册），在本地 HTTP 终结点接收消息</translation>
        </message>
        <message>
            <source>A WeCom (企业微信) AI bot on the WebSocket long connection</source>
            <translation>企业微信智能机器人，通过 WebSocket 长连接接入</translation>
        </message>
        <message>
            <source>Personal WeChat through the iLink bot API</source>
            <translation>通过 iLink 机器人 API 接入个人微信</translation>
        </message>
        <message>
            <source>Channels</source>
            <translation>渠道</translation>
        </message>
        <message>
            <source>Send progress</source>
            <translation>发送进度</translation>
        </message>
        <message>
            <source>Send tool hints</source>
            <translation>发送工具提示</translation>
        </message>
        <message>
            <source>Reach the agent from chat apps. Tokens and passwords are stored in the OS keyring.</source>
            <translation>在聊天应用中与智能体对话。令牌和密码保存在系统密钥环中。</translation>
        </message>
        <message>
            <source>Send progress messages while the agent works</source>
            <translation>智能体工作时发送进度消息</translation>
        </message>
        <message>
            <source>Send a short note when a tool runs</source>
            <translation>运行工具时发送一条简短提示</translation>
        </message>
        <message>
            <source>{channel}: {state}</source>
            <translation>{channel}：{state}</translation>
        </message>
        <message>
            <source>{channel} is on.</source>
            <translation>{channel} 已开启。</translation>
        </message>
        <message>
            <source>connected</source>
            <translation>已连接</translation>
        </message>
        <message>
            <source>waiting for you to scan the QR code</source>
            <translation>等待你扫描二维码</translation>
        </message>
        <message>
            <source>disconnected (retrying)</source>
            <translation>已断开（正在重试）</translation>
        </message>
        <message>
            <source>cannot run</source>
            <translation>无法运行</translation>
        </message>
        <message>
            <source>on, not running</source>
            <translation>已开启，未运行</translation>
        </message>
        <message>
            <source>off</source>
            <translation>关闭</translation>
        </message>
        <message>
            <source>{channel} install command</source>
            <translation>{channel} 安装命令</translation>
        </message>
        <message>
            <source>Install {channel} support</source>
            <translation>安装 {channel} 支持组件</translation>
        </message>
        <message>
            <source>Turn on {channel}</source>
            <translation>开启 {channel}</translation>
        </message>
        <message>
            <source>Save this page with the channel enabled; it connects now</source>
            <translation>保存此页并启用该渠道，随即开始连接</translation>
        </message>
        <message>
            <source>Installing {channel} support</source>
            <translation>正在安装 {channel} 支持组件</translation>
        </message>
        <message>
            <source>{channel} installer output</source>
            <translation>{channel} 安装输出</translation>
        </message>
        <message>
            <source>This runs: {command}</source>
            <translation>将运行：{command}</translation>
        </message>
        <message>
            <source>To add it, run: {command}</source>
            <translation>要添加它，请运行：{command}</translation>
        </message>
        <message>
            <source>Dream &amp; heartbeat</source>
            <translation>梦境整理与心跳</translation>
        </message>
        <message>
            <source>Dream periodically distils the conversation history into long-term memory; every run is a commit you can inspect and revert in the Memory tab.</source>
            <translation>梦境整理（Dream）会定期把对话历史提炼为长期记忆；每次运行都是一次提交，你可以在“记忆”标签页中查看和撤销。</translation>
        </message>
        <message>
            <source>Review Dream changes before they land</source>
            <translation>在梦境整理的修改生效前先审阅</translation>
        </message>
        <message>
            <source>Dream then proposes its changes instead of making them: the Memory tab shows them, and you accept all, some or none (or edit them). Nothing is written until you decide; while a proposal waits, Dream does not run again.</source>
            <translation>这样梦境整理只提出修改而不直接写入：“记忆”标签页会显示这些修改，你可以全部接受、部分接受或全部拒绝（也可以编辑）。在你决定之前不会写入任何内容；提议等待期间，梦境整理不会再次运行。</translation>
        </message>
        <message>
            <source>The heartbeat reads HEARTBEAT.md in the workspace at a fixed interval and acts on the tasks listed there.</source>
            <translation>心跳会按固定间隔读取工作区中的 HEARTBEAT.md，并执行其中列出的任务。</translation>
        </message>
        <message>
            <source>Saved, but the review setting was not saved: {error}</source>
            <translation>已保存，但审阅设置未能保存：{error}</translation>
        </message>
        <message>
            <source>The platform</source>
            <translation>该平台</translation>
        </message>
        <message>
            <source>Choose…</source>
            <translation>选择…</translation>
        </message>
        <message>
            <source>Choose {field}</source>
            <translation>选择{field}</translation>
        </message>
        <message>
            <source>Choose an emoji</source>
            <translation>选择表情</translation>
        </message>
        <message>
            <source>No reaction</source>
            <translation>不回应</translation>
        </message>
        <message>
            <source>{field} name</source>
            <translation>{field}名称</translation>
        </message>
        <message>
            <source>Emoji name</source>
            <translation>表情名称</translation>
        </message>
        <message>
            <source>{platform} does not accept this one: choose from the list</source>
            <translation>{platform} 不接受这个表情：请从列表中选择</translation>
        </message>
        <message>
            <source>Custom ({codes})</source>
            <translation>自定义（{codes}）</translation>
        </message>
        <message>
            <source>Approve before starting</source>
            <translation>启动前审批</translation>
        </message>
        <message>
            <source>These programs will run on this computer with your user's rights, and servers are contacted as listed. Only approve what you trust.</source>
            <translation>这些程序将以你的用户权限在本机运行，并按所列地址连接服务器。请只批准你信任的内容。</translation>
        </message>
        <message>
            <source>Cancel: do not save or start these servers</source>
            <translation>取消：不保存也不启动这些服务器</translation>
        </message>
        <message>
            <source>Approve and start</source>
            <translation>批准并启动</translation>
        </message>
        <message>
            <source>Approve and start the ticked servers</source>
            <translation>批准并启动勾选的服务器</translation>
        </message>
        <message>
            <source>{server} (replaces the existing entry)</source>
            <translation>{server}（替换现有条目）</translation>
        </message>
        <message>
            <source>{server} — an HTTP server; no program is started</source>
            <translation>{server}——HTTP 服务器，不会启动程序</translation>
        </message>
        <message>
            <source>{server} — command unchanged</source>
            <translation>{server}——命令未改变</translation>
        </message>
        <message>
            <source>Approve MCP server {name}</source>
            <translation>批准 MCP 服务器 {name}</translation>
        </message>
        <message>
            <source>What MCP server {name} runs</source>
            <translation>MCP 服务器 {name} 运行的内容</translation>
        </message>
        <message>
            <source>Approve {count} servers before starting</source>
            <translation>启动前审批 {count} 个服务器</translation>
        </message>
        <message>
            <source>Import MCP servers</source>
            <translation>导入 MCP 服务器</translation>
        </message>
        <message>
            <source>Paste the "mcpServers" JSON from Claude Desktop (claude_desktop_config.json) or another app, or open such a file. You review every command next.</source>
            <translation>粘贴来自 Claude Desktop（claude_desktop_config.json）或其他应用的 "mcpServers" JSON，或打开这样的文件。下一步你会逐条审阅每个命令。</translation>
        </message>
        <message>
            <source>MCP servers JSON</source>
            <translation>MCP 服务器 JSON</translation>
        </message>
        <message>
            <source>Import status</source>
            <translation>导入状态</translation>
        </message>
        <message>
            <source>Open file…</source>
            <translation>打开文件…</translation>
        </message>
        <message>
            <source>Open a JSON file with MCP servers</source>
            <translation>打开包含 MCP 服务器的 JSON 文件</translation>
        </message>
        <message>
            <source>Cancel the import</source>
            <translation>取消导入</translation>
        </message>
        <message>
            <source>Review</source>
            <translation>审阅</translation>
        </message>
        <message>
            <source>Review the servers to import</source>
            <translation>审阅要导入的服务器</translation>
        </message>
        <message>
            <source>Open MCP servers JSON</source>
            <translation>打开 MCP 服务器 JSON</translation>
        </message>
        <message>
            <source>JSON files (*.json)</source>
            <translation>JSON 文件 (*.json)</translation>
        </message>
        <message>
            <source>All files (*)</source>
            <translation>所有文件 (*)</translation>
        </message>
        <message>
            <source>local command (stdio)</source>
            <translation>本地命令（stdio）</translation>
        </message>
        <message>
            <source>HTTP (SSE)</source>
            <translation>HTTP（SSE）</translation>
        </message>
        <message>
            <source>HTTP (streamable)</source>
            <translation>HTTP（流式）</translation>
        </message>
        <message>
            <source>Disabled</source>
            <translation>已停用</translation>
        </message>
        <message>
            <source>Not connected yet: connects at the agent's next turn</source>
            <translation>尚未连接：将在智能体的下一轮连接</translation>
        </message>
        <message>
            <source>Not connected yet: connects when the agent starts (or press Connect)</source>
            <translation>尚未连接：将在智能体启动时连接（或点击“连接”）</translation>
        </message>
        <message>
            <source>Connected with 1 tool</source>
            <translation>已连接，1 个工具</translation>
        </message>
        <message>
            <source>Connected with {count} tools</source>
            <translation>已连接，{count} 个工具</translation>
        </message>
        <message>
            <source>Disabled (no tools enabled)</source>
            <translation>已停用（未启用任何工具）</translation>
        </message>
        <message>
            <source>Failed: {error}</source>
            <translation>失败：{error}</translation>
        </message>
        <message>
            <source>unknown error</source>
            <translation>未知错误</translation>
        </message>
        <message>
            <source>What the server runs</source>
            <translation>服务器运行的内容</translation>
        </message>
        <message>
            <source>MCP server status</source>
            <translation>MCP 服务器状态</translation>
        </message>
        <message>
            <source>Edit…</source>
            <translation>编辑…</translation>
        </message>
        <message>
            <source>Edit this MCP server</source>
            <translation>编辑此 MCP 服务器</translation>
        </message>
        <message>
            <source>Disable</source>
            <translation>停用</translation>
        </message>
        <message>
            <source>Enable or disable this MCP server</source>
            <translation>启用或停用此 MCP 服务器</translation>
        </message>
        <message>
            <source>Reconnect</source>
            <translation>重新连接</translation>
        </message>
        <message>
            <source>Reconnect this MCP server</source>
            <translation>重新连接此 MCP 服务器</translation>
        </message>
        <message>
            <source>Remove this MCP server</source>
            <translation>移除此 MCP 服务器</translation>
        </message>
        <message>
            <source>Sign in…</source>
            <translation>登录…</translation>
        </message>
        <message>
            <source>Sign in to this MCP server in the browser</source>
            <translation>在浏览器中登录此 MCP 服务器</translation>
        </message>
        <message>
            <source>Sign out</source>
            <translation>退出登录</translation>
        </message>
        <message>
            <source>Forget the sign-in of this MCP server</source>
            <translation>清除此 MCP 服务器的登录信息</translation>
        </message>
        <message>
            <source>Tools</source>
            <translation>工具</translation>
        </message>
        <message>
            <source>Tools of this MCP server</source>
            <translation>此 MCP 服务器的工具</translation>
        </message>
        <message>
            <source>Show stderr</source>
            <translation>显示 stderr</translation>
        </message>
        <message>
            <source>Show the last lines the server wrote to stderr</source>
            <translation>显示服务器最近写入 stderr 的几行</translation>
        </message>
        <message>
            <source>Server stderr</source>
            <translation>服务器 stderr</translation>
        </message>
        <message>
            <source>Nothing written to stderr yet.</source>
            <translation>stderr 中还没有内容。</translation>
        </message>
        <message>
            <source>Hide stderr</source>
            <translation>隐藏 stderr</translation>
        </message>
        <message>
            <source>incomplete entry</source>
            <translation>条目不完整</translation>
        </message>
        <message>
            <source>MCP server {name}</source>
            <translation>MCP 服务器 {name}</translation>
        </message>
        <message>
            <source>Enable</source>
            <translation>启用</translation>
        </message>
        <message>
            <source>Tools ({count})</source>
            <translation>工具（{count}）</translation>
        </message>
        <message>
            <source>Tools (none yet)</source>
            <translation>工具（暂无）</translation>
        </message>
        <message>
            <source>Sign in again…</source>
            <translation>重新登录…</translation>
        </message>
        <message>
            <source>use letters, digits, '_', '.' or '-' (up to 64 characters), starting with a letter or digit</source>
            <extracomment>What a server name may be (the message of :func:`check_name`; marked for translation).</extracomment>
            <translation>请使用字母、数字、'_'、'.' 或 '-'（最多 64 个字符），并以字母或数字开头</translation>
        </message>
        <message>
            <source>Paste the JSON first.</source>
            <translation>请先粘贴 JSON。</translation>
        </message>
        <message>
            <source>Not valid JSON: {detail} (line {line}, column {column}).</source>
            <translation>不是有效的 JSON：{detail}（第 {line} 行，第 {column} 列）。</translation>
        </message>
        <message>
            <source>Expected a JSON object like {"mcpServers": {...}}.</source>
            <translation>应为类似 {"mcpServers": {...}} 的 JSON 对象。</translation>
        </message>
        <message>
            <source>No servers found: expected {"mcpServers": {"name": {"command": ...}}}.</source>
            <translation>未找到服务器：应为 {"mcpServers": {"name": {"command": ...}}}。</translation>
        </message>
        <message>
            <source>Server name {name}: {problem}.</source>
            <translation>服务器名称 {name}：{problem}。</translation>
        </message>
        <message>
            <source>Server {name}: expected an object with "command" or "url".</source>
            <translation>服务器 {name}：应为包含 "command" 或 "url" 的对象。</translation>
        </message>
        <message>
            <source>Server {name}: {where}: {detail}.</source>
            <translation>服务器 {name}：{where}：{detail}。</translation>
        </message>
        <message>
            <source>Server {name}: {detail}.</source>
            <translation>服务器 {name}：{detail}。</translation>
        </message>
        <message>
            <source>With environment: {variables}</source>
            <translation>环境变量：{variables}</translation>
        </message>
        <message>
            <source>Connects to: {url} (headers: {names})</source>
            <translation>连接到：{url}（请求头：{names}）</translation>
        </message>
        <message>
            <source>Connects to: {url}</source>
            <translation>连接到：{url}</translation>
        </message>
        <message>
            <source>no browser could be opened; open this address yourself: {url}</source>
            <translation>无法打开浏览器，请自行打开此地址：{url}</translation>
        </message>
        <message>
            <source>MCP servers</source>
            <translation>MCP 服务器</translation>
        </message>
        <message>
            <source>Model Context Protocol servers give the agent extra tools. Changes are saved at once.</source>
            <translation>MCP（模型上下文协议）服务器为智能体提供额外的工具。更改会立即保存。</translation>
        </message>
        <message>
            <source>No MCP servers yet. Add one, or import the "mcpServers" JSON of Claude Desktop.</source>
            <translation>还没有 MCP 服务器。添加一个，或导入 Claude Desktop 的 "mcpServers" JSON。</translation>
        </message>
        <message>
            <source>Add server…</source>
            <translation>添加服务器…</translation>
        </message>
        <message>
            <source>Import JSON…</source>
            <translation>导入 JSON…</translation>
        </message>
        <message>
            <source>Import MCP servers from Claude Desktop JSON</source>
            <translation>从 Claude Desktop 的 JSON 导入 MCP 服务器</translation>
        </message>
        <message>
            <source>Undo remove</source>
            <translation>撤销移除</translation>
        </message>
        <message>
            <source>Put the removed MCP server back</source>
            <translation>恢复已移除的 MCP 服务器</translation>
        </message>
        <message>
            <source>Status is live from the running agent.</source>
            <translation>状态实时来自正在运行的智能体。</translation>
        </message>
        <message>
            <source>The agent is still starting: servers you add or connect here are tried right away; the agent takes over once it runs.</source>
            <translation>智能体仍在启动：你在这里添加或连接的服务器会立即尝试连接；智能体运行后将接管它们。</translation>
        </message>
        <message>
            <source>the file is larger than 1 MB; is it the right one?</source>
            <translation>文件大于 1 MB，确定是这个文件吗？</translation>
        </message>
        <message>
            <source>Cannot read {path}: {error}</source>
            <translation>无法读取 {path}：{error}</translation>
        </message>
        <message>
            <source>Saved {names}.</source>
            <translation>已保存 {names}。</translation>
        </message>
        <message>
            <source>No OS keyring: its secret headers stay in config.json.</source>
            <translation>没有系统密钥环：其机密请求头仍保存在 config.json 中。</translation>
        </message>
        <message>
            <source>{headers} kept in the OS keyring.</source>
            <translation>{headers} 已保存在系统密钥环中。</translation>
        </message>
        <message>
            <source>{reason}. Nothing was saved.</source>
            <translation>{reason}。未保存任何内容。</translation>
        </message>
        <message>
            <source>Removed {name}.</source>
            <translation>已移除 {name}。</translation>
        </message>
        <message>
            <source>Finish the sign-in in your browser (the page has opened)…</source>
            <translation>请在浏览器中完成登录（页面已打开）…</translation>
        </message>
        <message>
            <source>Sign-in to {name} failed: {error}</source>
            <translation>登录 {name} 失败：{error}</translation>
        </message>
        <message>
            <source>Signed in to {name}.</source>
            <translation>已登录 {name}。</translation>
        </message>
        <message>
            <source>Signed out of {name}.</source>
            <translation>已退出 {name} 的登录。</translation>
        </message>
        <message>
            <source>{name} was not signed in.</source>
            <translation>{name} 未登录。</translation>
        </message>
        <message>
            <source>Pending pairing requests</source>
            <translation>待处理的配对请求</translation>
        </message>
        <message>
            <source>Someone not in a channel's allowed senders who writes to the bot directly gets a pairing code. Approve it to let them in on that channel.</source>
            <translation>不在渠道“允许的发送者”中的人直接给机器人发消息时，会收到一个配对码。批准后，他们即可在该渠道使用。</translation>
        </message>
        <message>
            <source>&lt;b&gt;Approved senders&lt;/b&gt;</source>
            <translation>&lt;b&gt;已批准的发送者&lt;/b&gt;</translation>
        </message>
        <message>
            <source>The pairing file cannot be read: {error}</source>
            <translation>无法读取配对文件：{error}</translation>
        </message>
        <message>
            <source>No pending requests. Someone not in a channel's allowed senders who writes to the bot directly gets a pairing code, to approve here.</source>
            <translation>没有待处理的请求。不在渠道“允许的发送者”中的人直接给机器人发消息时，会收到一个配对码，可在这里批准。</translation>
        </message>
        <message>
            <source>No pending requests.</source>
            <translation>没有待处理的请求。</translation>
        </message>
        <message>
            <source>{channel}: {sender} — code {code} (expires in {minutes} min)</source>
            <translation>{channel}：{sender} — 配对码 {code}（{minutes} 分钟后过期）</translation>
        </message>
        <message>
            <source>Approve</source>
            <translation>批准</translation>
        </message>
        <message>
            <source>Nobody has been paired yet.</source>
            <translation>尚未与任何人配对。</translation>
        </message>
        <message>
            <source>Revoke</source>
            <translation>撤销</translation>
        </message>
        <message>
            <source>The pairing file cannot be changed: {error}</source>
            <translation>无法修改配对文件：{error}</translation>
        </message>
        <message>
            <source>{action} {request}</source>
            <translation>{action} {request}</translation>
        </message>
        <message>
            <source>QR code to scan</source>
            <translation>待扫描的二维码</translation>
        </message>
        <message>
            <source>{steps}, then scan this code:</source>
            <translation>{steps}，然后扫描此二维码：</translation>
        </message>
        <message>
            <source>How to link</source>
            <translation>关联方法</translation>
        </message>
        <message>
            <source>WhatsApp offers a new code every 20 seconds or so; it appears here.</source>
            <translation>WhatsApp 大约每 20 秒更换一次二维码，新码会显示在这里。</translation>
        </message>
        <message>
            <source>Login</source>
            <translation>登录</translation>
        </message>
        <message>
            <source>QR code problem</source>
            <translation>二维码问题</translation>
        </message>
        <message>
            <source>The code cannot be drawn here: {error}</source>
            <translation>无法在此显示二维码：{error}</translation>
        </message>
        <message>
            <source>Off (the default): commands see the workspace, the system (read-only) and a scratch home folder of their own, kept per workspace, so the keys, tokens and mail in your home folder stay out of their reach. The config folder stays hidden either way.</source>
            <translation>关闭（默认）：命令只能看到工作区、系统（只读）以及每个工作区各自的临时主文件夹，因此你主文件夹中的密钥、令牌和邮件不会被它们触及。无论哪种设置，配置文件夹都保持隐藏。</translation>
        </message>
        <message>
            <source>Folders outside the workspace that commands may see, each read-only or writable.</source>
            <translation>命令可以看到的工作区以外的文件夹，每个可设为只读或可写。</translation>
        </message>
        <message>
            <source>For each command and everything it starts. Reaching the process or memory limit stops the command; a larger file or more CPU time fails. Everything it started ends with it.</source>
            <translation>作用于每条命令及其启动的所有进程。达到进程数或内存上限会停止该命令；超出文件大小或 CPU 时间的操作会失败。命令结束时，它启动的一切也随之结束。</translation>
        </message>
        <message>
            <source>Read-only</source>
            <translation>只读</translation>
        </message>
        <message>
            <source>Read and write</source>
            <translation>读写</translation>
        </message>
        <message>
            <source>Processes</source>
            <translation>进程数</translation>
        </message>
        <message>
            <source>Memory (all processes together)</source>
            <translation>内存（所有进程合计）</translation>
        </message>
        <message>
            <source>Largest file</source>
            <translation>最大文件</translation>
        </message>
        <message>
            <source>Size of /tmp</source>
            <translation>/tmp 大小</translation>
        </message>
        <message>
            <source>CPU time per process</source>
            <translation>每个进程的 CPU 时间</translation>
        </message>
        <message>
            <source>What commands see and their limits</source>
            <translation>命令可见的内容及其限制</translation>
        </message>
        <message>
            <source>What commands see</source>
            <translation>命令可见的内容</translation>
        </message>
        <message>
            <source>Let commands see my home folder (read-only)</source>
            <translation>允许命令查看我的主文件夹（只读）</translation>
        </message>
        <message>
            <source>Let commands see my home folder</source>
            <translation>允许命令查看我的主文件夹</translation>
        </message>
        <message>
            <source>Folders commands may see</source>
            <translation>命令可见的文件夹</translation>
        </message>
        <message>
            <source>Folder</source>
            <translation>文件夹</translation>
        </message>
        <message>
            <source>Access</source>
            <translation>权限</translation>
        </message>
        <message>
            <source>Add folder…</source>
            <translation>添加文件夹…</translation>
        </message>
        <message>
            <source>Add a folder commands may see</source>
            <translation>添加一个命令可见的文件夹</translation>
        </message>
        <message>
            <source>Remove the selected folder</source>
            <translation>移除所选文件夹</translation>
        </message>
        <message>
            <source>Limits per command</source>
            <translation>每条命令的限制</translation>
        </message>
        <message>
            <source>Access to {path}</source>
            <translation>{path} 的访问权限</translation>
        </message>
        <message>
            <source>Choose a folder commands may see</source>
            <translation>选择一个命令可见的文件夹</translation>
        </message>
        <message>
            <source>{path} is not a full path (start it with / or ~/)</source>
            <translation>{path} 不是完整路径（请以 / 或 ~/ 开头）</translation>
        </message>
        <message>
            <source>Providers</source>
            <translation>服务商</translation>
        </message>
        <message>
            <source>Account</source>
            <translation>账号</translation>
        </message>
        <message>
            <source>Sign in.</source>
            <translation>登录。</translation>
        </message>
        <message>
            <source>API key</source>
            <translation>API 密钥</translation>
        </message>
        <message>
            <source>API base</source>
            <translation>API 地址</translation>
        </message>
        <message>
            <source>The address requests go to (endpoint, URL).</source>
            <translation>请求发送到的地址（端点、URL）。</translation>
        </message>
        <message>
            <source>Extra headers</source>
            <translation>额外请求头</translation>
        </message>
        <message>
            <source>HTTP headers sent with every request.</source>
            <translation>每个请求都会附带的 HTTP 请求头。</translation>
        </message>
        <message>
            <source>Test with model</source>
            <translation>测试所用模型</translation>
        </message>
        <message>
            <source>Test connection: one tiny real request.</source>
            <translation>测试连接：发送一次极小的真实请求。</translation>
        </message>
        <message>
            <source>Models</source>
            <translation>模型</translation>
        </message>
        <message>
            <source>Fetch models: the provider's model list.</source>
            <translation>获取模型：服务商的模型列表。</translation>
        </message>
        <message>
            <source>Search settings (Ctrl+F)</source>
            <translation>搜索设置（Ctrl+F）</translation>
        </message>
        <message>
            <source>Search settings</source>
            <translation>搜索设置</translation>
        </message>
        <message>
            <source>Settings found</source>
            <translation>找到的设置</translation>
        </message>
        <message>
            <source>No setting matches.</source>
            <translation>没有匹配的设置。</translation>
        </message>
        <message>
            <source>Found setting</source>
            <translation>找到的设置项</translation>
        </message>
        <message>
            <source>Tools &amp; safety</source>
            <translation>工具与安全</translation>
        </message>
        <message>
            <source>Settings</source>
            <translation>设置</translation>
        </message>
        <message>
            <source>Config file problem</source>
            <translation>配置文件问题</translation>
        </message>
        <message>
            <source>Check again</source>
            <translation>重新检查</translation>
        </message>
        <message>
            <source>Check the config file again</source>
            <translation>重新检查配置文件</translation>
        </message>
        <message>
            <source>Settings sections</source>
            <translation>设置分类</translation>
        </message>
        <message>
            <source>The config file cannot be read: {error}. Settings are not saved until it is fixed (nanobot Desktop never overwrites it).</source>
            <translation>无法读取配置文件：{error}。修复之前设置不会保存（nanobot Desktop 从不覆盖该文件）。</translation>
        </message>
        <message>
            <source>Allow patterns only exempt a command from the built-in safety rules (the whole command must match). They are not an allowlist: commands no rule refuses run whether or not they match. (The original nanobot treated allowPatterns as an allowlist.) Deny patterns always refuse a command that contains a match; nothing overrides them. Both are regular expressions, one per line.</source>
            <translation>允许模式只是让命令免于内置安全规则的检查（必须匹配整条命令）。它们不是白名单：没有规则拒绝的命令无论是否匹配都会运行。（原版 nanobot 把 allowPatterns 当作白名单。）拒绝模式总是拒绝包含匹配内容的命令，任何设置都无法覆盖。两者都是正则表达式，每行一个。</translation>
        </message>
        <message>
            <source>DuckDuckGo (no key needed)</source>
            <translation>DuckDuckGo（无需密钥）</translation>
        </message>
        <message>
            <source>Brave Search (needs a key)</source>
            <translation>Brave Search（需要密钥）</translation>
        </message>
        <message>
            <source>Sandbox: off (tools.exec.sandbox is "none") — commands run without containment; only the safety rules apply</source>
            <translation>沙箱：已关闭（tools.exec.sandbox 为 "none"）——命令在没有隔离的情况下运行，只有安全规则生效</translation>
        </message>
        <message>
            <source>Sandbox: bubblewrap, active ({notes})</source>
            <translation>沙箱：bubblewrap，已启用（{notes}）</translation>
        </message>
        <message>
            <source>Sandbox: bubblewrap, active</source>
            <translation>沙箱：bubblewrap，已启用</translation>
        </message>
        <message>
            <source>Sandbox: unavailable — {reason}. Commands are refused until it works</source>
            <translation>沙箱：不可用——{reason}。在沙箱可用之前，命令将被拒绝</translation>
        </message>
        <message>
            <source>Sandbox: unavailable — {reason}</source>
            <translation>沙箱：不可用——{reason}</translation>
        </message>
        <message>
            <source>What the agent's tools may do, and when it asks you first.</source>
            <translation>智能体的工具可以做什么，以及何时先征求你的同意。</translation>
        </message>
        <message>
            <source>Approval</source>
            <translation>审批</translation>
        </message>
        <message>
            <source>Ask me before running commands, writing outside the workspace, or using MCP tools</source>
            <translation>在运行命令、写入工作区以外的位置或使用 MCP 工具之前先询问我</translation>
        </message>
        <message>
            <source>Approval mode: ask</source>
            <translation>审批模式：询问</translation>
        </message>
        <message>
            <source>Autonomous: run tools without asking (nanobot's behaviour)</source>
            <translation>自主：不询问直接运行工具（nanobot 的默认行为）</translation>
        </message>
        <message>
            <source>Approval mode: autonomous</source>
            <translation>审批模式：自主</translation>
        </message>
        <message>
            <source>Never</source>
            <translation>永不</translation>
        </message>
        <message>
            <source> min</source>
            <translation> 分钟</translation>
        </message>
        <message>
            <source>Approval timeout in minutes (0 = never)</source>
            <translation>审批超时（分钟，0 = 永不）</translation>
        </message>
        <message>
            <source>A request nobody answers in this time counts as denied, and the agent is told so. Never: the turn waits until you answer or stop it.</source>
            <translation>在此时间内无人回应的请求视为拒绝，并告知智能体。永不：本轮会一直等到你回应或停止它。</translation>
        </message>
        <message>
            <source>Deny unanswered requests after</source>
            <translation>未回应的请求在此时间后拒绝</translation>
        </message>
        <message>
            <source>Files and commands</source>
            <translation>文件与命令</translation>
        </message>
        <message>
            <source>Sandbox: checking…</source>
            <translation>沙箱：正在检查…</translation>
        </message>
        <message>
            <source>Sandbox status</source>
            <translation>沙箱状态</translation>
        </message>
        <message>
            <source>Web search</source>
            <translation>网页搜索</translation>
        </message>
        <message>
            <source>Web search provider</source>
            <translation>网页搜索服务商</translation>
        </message>
        <message>
            <source>Brave Search API key</source>
            <translation>Brave Search API 密钥</translation>
        </message>
        <message>
            <source>Brave API key</source>
            <translation>Brave API 密钥</translation>
        </message>
        <message>
            <source>The search key is stored in the OS keyring. With a key, Brave is used.</source>
            <translation>搜索密钥保存在系统密钥环中。设置了密钥时使用 Brave。</translation>
        </message>
        <message>
            <source>Folders commands may see: {reason}. Nothing was saved.</source>
            <translation>命令可见的文件夹：{reason}。未保存任何内容。</translation>
        </message>
        <message>
            <source>Saved, but the approval settings were not saved: {error}</source>
            <translation>已保存，但审批设置未能保存：{error}</translation>
        </message>
        <message>
            <source>Name: value</source>
            <translation>名称: 值</translation>
        </message>
        <message>
            <source>NAME=value</source>
            <translation>变量名=值</translation>
        </message>
        <message>
            <source>line {number}: {name} is not a valid header name</source>
            <translation>第 {number} 行：{name} 不是有效的请求头名称</translation>
        </message>
        <message>
            <source>line {number}: {name} is not a valid variable name</source>
            <translation>第 {number} 行：{name} 不是有效的变量名</translation>
        </message>
        <message>
            <source>line {number} should look like '{example}'</source>
            <translation>第 {number} 行应形如“{example}”</translation>
        </message>
        <message>
            <source>enter a URL</source>
            <translation>请输入 URL</translation>
        </message>
        <message>
            <source>{text} is not a URL starting with {schemes}</source>
            <translation>{text} 不是以 {schemes} 开头的 URL</translation>
        </message>
        <message>
            <source> or </source>
            <translation> 或 </translation>
        </message>
        <message>
            <source>line {number}: not a valid regular expression ({error})</source>
            <translation>第 {number} 行：不是有效的正则表达式（{error}）</translation>
        </message>
        <message>
            <source>{path} is a file, not a folder.</source>
            <translation>{path} 是文件，不是文件夹。</translation>
        </message>
        <message>
            <source>This folder does not exist yet; it is created with the starter files.</source>
            <translation>此文件夹尚不存在；将创建它并放入初始文件。</translation>
        </message>
        <message>
            <source>An existing nanobot workspace ({files}, {count} saved chat(s)). Nothing in it is overwritten.</source>
            <translation>已有的 nanobot 工作区（{files}，{count} 个已保存的聊天）。其中的内容不会被覆盖。</translation>
        </message>
        <message>
            <source>An existing nanobot workspace ({files}). Nothing in it is overwritten.</source>
            <translation>已有的 nanobot 工作区（{files}）。其中的内容不会被覆盖。</translation>
        </message>
        <message>
            <source>A folder with other files; the starter files are added beside them.</source>
            <translation>包含其他文件的文件夹；初始文件会添加在它们旁边。</translation>
        </message>
        <message>
            <source>An empty folder; the starter files are created in it.</source>
            <translation>空文件夹；将在其中创建初始文件。</translation>
        </message>
        <message>
            <source>Workspace folder</source>
            <translation>工作区文件夹</translation>
        </message>
        <message>
            <source>Browse…</source>
            <translation>浏览…</translation>
        </message>
        <message>
            <source>Choose the workspace folder</source>
            <translation>选择工作区文件夹</translation>
        </message>
        <message>
            <source>About the workspace folder</source>
            <translation>关于工作区文件夹</translation>
        </message>
        <message>
            <source>Choose or open a nanobot workspace</source>
            <translation>选择或打开 nanobot 工作区</translation>
        </message>
    </context>
</TS>
